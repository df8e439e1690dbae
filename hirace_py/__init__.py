"""hirace: an exact, source-level data-race checker for CUDA programs.

import hirace_py
report = hirace_py.check(source, "kernel", grid, block, args)
"""

__version__ = "0.1.0"


def check(*args, **kwargs):  # type: ignore[no-untyped-def]
    """See `hirace_py.checker.check`: instrument, run and report one kernel launch."""
    from hirace_py.checker import check as _check

    return _check(*args, **kwargs)


__all__ = ["__version__", "check"]
