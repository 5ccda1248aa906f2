"""Experiment scripts: tournaments (``python -m experiments.tournament``), and more with their issues."""
