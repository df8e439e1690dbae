"""Indigo-suite support: ECL graph files, graph generators, structural properties.

- `ecl`: the `Graph` (CSR) type and the ECL file reader/writer.
- `generators`: seeded graph families (dag, counter_dag, power_law, star, grid,
  binary_tree) for suite inputs.
- `properties`: degree statistics and structural tests (DAG, shared neighbours)
  used by `hirace graph info` and by the mini-suite's race-manifestation notes.
"""

from hirace_py.indigo.ecl import EclError, Graph, parse_ecl, read_ecl, write_ecl
from hirace_py.indigo.generators import FAMILIES, GeneratorError, generate

__all__ = [
    "FAMILIES",
    "EclError",
    "GeneratorError",
    "Graph",
    "generate",
    "parse_ecl",
    "read_ecl",
    "write_ecl",
]
