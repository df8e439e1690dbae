"""Source instrumentation: parse CUDA with libclang, plan rewrites, render instrumented source.

`instrument(source, filename, config)` is the entry point; it returns the
instrumented source together with the tables (sites, variables, kernels) the
host side needs to run it and to read its race reports.
"""

from hirace_py.instrument.api import Instrumented, instrument

__all__ = ["Instrumented", "instrument"]
