"""Execution backends: the CPU backend (always available) and CuPy (with a GPU)."""
