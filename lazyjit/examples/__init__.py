"""Runnable examples: ``python -m lazyjit.examples.digits``."""
