"""`hirace.toml`: what to monitor and how, validated strictly.

Every key is known: an unknown section or key, or a value of the wrong type
or range, is a `ConfigError` naming the key and what is allowed.

    [instrument]
    kernels = ["k1"]          # instrument only these kernels (default: all)
    skip_kernels = ["k2"]     # never instrument these
    [monitor]
    variables = ["a", "s"]    # monitor only these variables (default: all)
    skip_variables = ["tmp"]  # never monitor these
    blocks = [0, 4]           # monitor linear blocks lo <= b < hi (default: all)
    [report]
    capacity = 1024           # race records kept per launch (a power of two)
    pairs = "exact"           # "exact": replay racy launches to list every racing
                              # pair; "last": one pair per element from the shadow word
    log_capacity = 1048576    # accesses a replay may log
    [shadow]
    clock_bits = 16           # cap each barrier clock's width (default: all that fits)
    sites = true              # record the partner access's site in the shadow word
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hirace_py import tomlfile
from hirace_py.errors import HiraceError


class ConfigError(HiraceError):
    """A bad configuration file or value; the message names the key."""


@dataclass(frozen=True)
class Config:
    kernels: tuple[str, ...] | None = None
    skip_kernels: tuple[str, ...] = ()
    variables: tuple[str, ...] | None = None
    skip_variables: tuple[str, ...] = ()
    blocks: tuple[int, int] | None = None
    report_capacity: int = 1024
    pairs: str = "exact"
    log_capacity: int = 1 << 20
    clock_bits: int | None = None
    sites: bool = True
    source: str = field(default="defaults", compare=False)

    def instrument_kernel(self, name: str) -> bool:
        if name in self.skip_kernels:
            return False
        return self.kernels is None or name in self.kernels

    def monitor_variable(self, name: str) -> bool:
        if name in self.skip_variables:
            return False
        return self.variables is None or name in self.variables


def _names(where: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"{where}: expected a list of names, got {value!r}")
    return tuple(value)


def _int(where: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ConfigError(f"{where}: expected an integer from {lo} to {hi}, got {value!r}")
    return value


SCHEMA: dict[str, set[str]] = {
    "instrument": {"kernels", "skip_kernels"},
    "monitor": {"variables", "skip_variables", "blocks"},
    "report": {"capacity", "pairs", "log_capacity"},
    "shadow": {"clock_bits", "sites"},
}


def from_dict(doc: dict[str, Any], source: str = "<config>") -> Config:
    """Validate a parsed TOML document; ConfigError names `source` and the bad key."""
    for section, body in doc.items():
        if section not in SCHEMA:
            raise ConfigError(
                f"{source}: unknown section [{section}]; sections are "
                f"{', '.join('[' + s + ']' for s in SCHEMA)}"
            )
        if not isinstance(body, dict):
            raise ConfigError(f"{source}: {section} must be a table")
        for key in body:
            if key not in SCHEMA[section]:
                raise ConfigError(
                    f"{source}: unknown key {section}.{key}; [{section}] takes "
                    f"{', '.join(sorted(SCHEMA[section]))}"
                )
    get = lambda s, k: doc.get(s, {}).get(k)  # noqa: E731
    kw: dict[str, Any] = {"source": source}
    if (v := get("instrument", "kernels")) is not None:
        kw["kernels"] = _names(f"{source}: instrument.kernels", v)
    if (v := get("instrument", "skip_kernels")) is not None:
        kw["skip_kernels"] = _names(f"{source}: instrument.skip_kernels", v)
    if (v := get("monitor", "variables")) is not None:
        kw["variables"] = _names(f"{source}: monitor.variables", v)
    if (v := get("monitor", "skip_variables")) is not None:
        kw["skip_variables"] = _names(f"{source}: monitor.skip_variables", v)
    if (v := get("monitor", "blocks")) is not None:
        where = f"{source}: monitor.blocks"
        if not isinstance(v, list) or len(v) != 2:
            raise ConfigError(f"{where}: expected [lo, hi], got {v!r}")
        lo, hi = (_int(where, x, 0, 2**63 - 1) for x in v)
        if lo >= hi:
            raise ConfigError(f"{where}: expected lo < hi, got {v!r}")
        kw["blocks"] = (lo, hi)
    if (v := get("report", "capacity")) is not None:
        cap = _int(f"{source}: report.capacity", v, 1, 1 << 24)
        if cap & (cap - 1):
            raise ConfigError(f"{source}: report.capacity: expected a power of two, got {cap}")
        kw["report_capacity"] = cap
    if (v := get("report", "pairs")) is not None:
        if v not in ("exact", "last"):
            raise ConfigError(f"{source}: report.pairs: expected 'exact' or 'last', got {v!r}")
        kw["pairs"] = v
    if (v := get("report", "log_capacity")) is not None:
        kw["log_capacity"] = _int(f"{source}: report.log_capacity", v, 1, 1 << 30)
    if (v := get("shadow", "clock_bits")) is not None:
        kw["clock_bits"] = _int(f"{source}: shadow.clock_bits", v, 4, 32)
    if (v := get("shadow", "sites")) is not None:
        if not isinstance(v, bool):
            raise ConfigError(f"{source}: shadow.sites: expected true or false, got {v!r}")
        kw["sites"] = v
    return Config(**kw)


def load(path: str | Path) -> Config:
    """Read and validate a hirace.toml file."""
    path = Path(path)
    return from_dict(tomlfile.read(path, "a TOML configuration", ConfigError), str(path))
