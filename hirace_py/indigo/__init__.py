"""Labeled suites of CUDA programs (Indigo, Indigo3, the mini-suite) and their inputs.

- `suite`: the codes of a suite and the labels their file names carry;
  `programs`: one code built as its own program and run on each input;
  `runner`, `pool`, `results`, `summary`, `progress`: `hirace check SUITE
  --inputs ...` (docs/indigo.md);
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
