"""Screens of the pibench TUI: forms, confirmations, digest, help, saves, end of career."""
