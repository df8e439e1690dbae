"""hirace: an exact, source-level data-race checker for CUDA programs."""

__version__ = "0.1.0"
