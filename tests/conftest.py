"""Shared pytest configuration: the `gpu` marker skips cleanly without a usable GPU."""

from __future__ import annotations

import pytest

from hirace_py.backends.select import gpu_usable


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if gpu_usable():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU with CuPy")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
