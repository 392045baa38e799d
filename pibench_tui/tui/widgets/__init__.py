"""Widgets of the pibench TUI: header, panels, plots, console."""
