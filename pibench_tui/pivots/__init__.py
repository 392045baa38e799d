"""Pivot cases (PIVOTS.md): files, evaluation of models and judges, scoring.

The pivot logic that needs only the world (decision points, plans, truth by branches) lives
in ``world``; this package holds what needs files, executors and LLMs.
"""
