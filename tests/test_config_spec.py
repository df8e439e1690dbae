"""hirace.toml and launch specs: valid files load, every bad key or value is named."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hirace_py.config import Config, ConfigError, from_dict, load
from hirace_py.instrument.model import Param
from hirace_py.launchspec import SpecError
from hirace_py.launchspec import load as load_spec


def test_full_config_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "hirace.toml"
    path.write_text(
        '[instrument]\nkernels = ["a", "b"]\nskip_kernels = ["b"]\n'
        '[monitor]\nvariables = ["x"]\nskip_variables = ["y"]\nblocks = [2, 5]\n'
        '[report]\ncapacity = 64\npairs = "last"\nlog_capacity = 100\n'
        "[shadow]\nclock_bits = 16\nsites = false\n"
    )
    c = load(path)
    assert (
        c.instrument_kernel("a") and not c.instrument_kernel("b") and not c.instrument_kernel("c")
    )
    assert c.monitor_variable("x") and not c.monitor_variable("y") and not c.monitor_variable("z")
    assert (c.blocks, c.report_capacity, c.pairs, c.log_capacity) == ((2, 5), 64, "last", 100)
    assert (c.clock_bits, c.sites) == (16, False)
    assert Config().instrument_kernel("anything") and Config().monitor_variable("anything")


@pytest.mark.parametrize(
    ("doc", "needle"),
    [
        ({"shadows": {}}, "unknown section [shadows]"),
        ({"report": {"capacty": 4}}, "unknown key report.capacty"),
        ({"report": {"capacity": 100}}, "report.capacity: expected a power of two"),
        ({"report": {"capacity": "1"}}, "report.capacity: expected an integer"),
        ({"report": {"pairs": "all"}}, "report.pairs"),
        ({"monitor": {"blocks": [5, 2]}}, "monitor.blocks: expected lo < hi"),
        ({"monitor": {"blocks": 3}}, "monitor.blocks: expected [lo, hi]"),
        ({"instrument": {"kernels": "k"}}, "instrument.kernels: expected a list of names"),
        ({"shadow": {"clock_bits": 2}}, "shadow.clock_bits: expected an integer from 4 to 32"),
        ({"shadow": {"sites": 1}}, "shadow.sites: expected true or false"),
        ({"report": 3}, "report must be a table"),
    ],
)
def test_bad_config_names_the_key(doc: dict, needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        from_dict(doc, "hirace.toml")
    assert needle in str(info.value) and str(info.value).startswith("hirace.toml")


def test_unreadable_and_invalid_toml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load(tmp_path / "missing.toml")
    (tmp_path / "bad.toml").write_text("[report\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load(tmp_path / "bad.toml")


def params(*names: str) -> list[Param]:
    """Parameters of scalar type (a spec's arrays and scalars need no more)."""
    return [Param(n, "int", False, None) for n in names]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(text)
    return path


def test_spec_builds_deterministic_arrays(tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", np.arange(5, dtype=np.float64))
    spec = load_spec(
        write(
            tmp_path,
            """
[[launch]]
kernel = "k"
grid = [2, 3]
block = 64
shared_bytes = 128
[launch.args]
a = { dtype = "int32", length = 4, init = "arange" }
b = { dtype = "float32", length = 3, init = "random", seed = 7, low = 1, high = 2 }
c = { dtype = "uint8", length = 2, fill = 9 }
d = { dtype = "float64", init = "npy", path = "x.npy" }
n = 4
f = 2.5
[[launch]]
kernel = "k2"
grid = 1
block = 1
""",
        )
    )
    assert [s.kernel for s in spec] == ["k", "k2"]
    first = spec[0]
    launch = first.config
    assert (launch.grid, launch.block, launch.shared_bytes) == ((2, 3, 1), (64, 1, 1), 128)
    a, b, c, d, n, f = first.build_args(params("a", "b", "c", "d", "n", "f"), "t")
    np.testing.assert_array_equal(a, [0, 1, 2, 3])
    assert b.dtype == np.float32 and ((b >= 1) & (b < 2)).all()
    np.testing.assert_array_equal(b, first.build_args(params("a", "b", "c", "d", "n", "f"), "t")[1])
    np.testing.assert_array_equal(c, [9, 9])
    np.testing.assert_array_equal(d, np.arange(5))
    assert (n, f) == (4, 2.5)
    with pytest.raises(SpecError, match="missing parameter"):
        first.build_args(params("a", "b", "c", "d", "n", "f", "g"), "t")
    with pytest.raises(SpecError, match="unknown parameter"):
        first.build_args(params("a", "b"), "t")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "expected at least one [[launch]]"),
        ("[[launch]]\ngrid = 1\nblock = 1\n", "launch[0].kernel"),
        ('[[launch]]\nkernel = "k"\ngrid = 0\nblock = 1\n', "launch[0].grid"),
        ('[[launch]]\nkernel = "k"\ngrid = [1, 1, 1, 1]\nblock = 1\n', "launch[0].grid"),
        ('[[launch]]\nkernel = "k"\ngrid = 1\nblock = 1\nwarp = 3\n', "unknown key(s) warp"),
        ('[[launch]]\nkernel = "k"\ngrid = 1\nblock = 1\nschedule = "lifo"\n', "schedule"),
        (
            '[[launch]]\nkernel = "k"\ngrid = 1\nblock = 1\n[launch.args]\nx = "s"\n',
            "launch[0].args.x",
        ),
        (
            '[[launch]]\nkernel = "k"\ngrid = 1\nblock = 1\n[launch.args]\n'
            'x = { dtype = "int32" }\n',
            "args.x.length",
        ),
        (
            '[[launch]]\nkernel = "k"\ngrid = 1\nblock = 1\n[launch.args]\n'
            'x = { dtype = "int32", length = 2, init = "magic" }\n',
            "args.x.init",
        ),
        (
            '[[launch]]\nkernel = "k"\ngrid = 1\nblock = 1\n[launch.args]\n'
            'x = { dtype = "int32", length = 2, colour = 1 }\n',
            "unknown key(s) colour",
        ),
        (
            '[[launch]]\nkernel = "k"\ngrid = 1\nblock = 1\n[launch.args]\n'
            'x = { dtype = "int32", init = "npy", path = "nope.npy" }\n',
            "no such file",
        ),
        ("[[launch]\n", "invalid TOML"),
        ('extra = 1\n[[launch]]\nkernel = "k"\ngrid = 1\nblock = 1\n', "unknown key(s) extra"),
    ],
)
def test_bad_spec_names_file_and_key(tmp_path: Path, text: str, needle: str) -> None:
    with pytest.raises(SpecError) as info:
        load_spec(write(tmp_path, text))
    assert needle in str(info.value) and str(tmp_path / "spec.toml") in str(info.value)
