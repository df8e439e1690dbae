"""Struct arguments in launch specs: by value and behind pointers, fields by name.

The layout comes from the parse (libclang), so these tests check it against
what the compiled kernel itself reads and writes, field by field.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hirace_py.checker import Checker
from hirace_py.cli import main
from hirace_py.launchspec import SpecError
from hirace_py.launchspec import load as load_spec

SOURCE = """\
struct Inner { short s; double d[2]; };
struct Params { int n; float scale; Inner in; char tag[3]; };
struct Cell { int key; float value; };
struct Flags { int a : 3; };

// Every thread writes its cell from the struct passed by value.
__global__ void fill(Params p, Cell* cells) {
  int i = threadIdx.x;
  if (i < p.n) {
    cells[i].key = i + p.in.s + p.tag[2];
    cells[i].value = cells[i].value * p.scale + (float)p.in.d[1];
  }
}

// Racy: thread i also writes its neighbour's key.
__global__ void spill(Cell* cells, int n) {
  int i = threadIdx.x;
  cells[i].key = i;
  cells[(i + 1) % n].key = -i;
}

__global__ void flags(Flags f, int* out) { out[0] = f.a; }
"""

FILL = """\
[[launch]]
kernel = "fill"
grid = 1
block = 32
[launch.args]
p = { fields = { n = 20, scale = 2.0, in = { s = 7, d = 0.5 }, tag = 1 } }
cells = { dtype = "struct", length = 32, init = "arange", fields = { value = 3.0 } }
"""


@pytest.fixture(scope="module")
def checker(tmp_path_factory: pytest.TempPathFactory) -> Checker:
    path = tmp_path_factory.mktemp("structs") / "structs.cu"
    path.write_text(SOURCE)
    return Checker(SOURCE, str(path), backend="cpu")


def _args(checker: Checker, tmp_path: Path, text: str) -> tuple[object, list[object]]:
    spec_path = tmp_path / "s.toml"
    spec_path.write_text(text)
    spec = load_spec(spec_path)[0]
    return spec, spec.build_args(checker.tables.kernel(spec.kernel).params, "s.toml")


def test_fields_by_name_reach_the_kernel(checker: Checker, tmp_path: Path) -> None:
    spec, args = _args(checker, tmp_path, FILL)
    p, cells = args
    assert p["n"] == 20 and p["in.s"] == 7 and list(p["in.d"]) == [0.5, 0.5]
    launch = checker.launch("fill", spec.config, args)
    assert launch.races == []
    i = np.arange(32)
    want_key = np.where(i < 20, i + 7 + 1, i)  # "arange" set every field to i
    want_value = np.where(i < 20, 3.0 * 2.0 + 0.5, 3.0)
    np.testing.assert_array_equal(cells["key"], want_key)
    np.testing.assert_allclose(cells["value"], want_value)


def test_a_race_on_a_struct_field_is_found(checker: Checker, tmp_path: Path) -> None:
    spec, args = _args(checker, tmp_path, """\
[[launch]]
kernel = "spill"
grid = 1
block = 32
[launch.args]
cells = { dtype = "struct", length = 32 }
n = 32
""")
    launch = checker.launch("spill", spec.config, args)
    assert {r.kind for r in launch.races} == {"write-write"}
    assert {r.variable for r in launch.races} == {"cells"}


@pytest.mark.parametrize(
    ("arg", "message"),
    [
        ("p = { fields = { count = 1 } }",
         r"args.p.fields.count: Params has no field count \(fields: n, scale, in.s, in.d, tag\)"),
        ('p = { dtype = "struct", length = 1 }',
         r"args.p: parameter p \(Params\) is not a pointer"),
        ("cells = { fields = { key = 1 } }", r"args.cells: parameter cells \(Cell \*\) is not a "
         "struct by value"),
        ('cells = { dtype = "int32", length = 4, fields = { key = 1 } }',
         "args.cells.fields: only an array of dtype"),
        ("p = { fields = { n = [1, 2] } }", r"args.p.fields.n: expected a number"),
    ],
)
def test_bad_struct_arguments_name_the_key(
    checker: Checker, tmp_path: Path, arg: str, message: str
) -> None:
    name = arg.split()[0]
    other = ('cells = { dtype = "struct", length = 32 }' if name == "p"
             else "p = { fields = { n = 1 } }")  # fmt: skip
    text = f'[[launch]]\nkernel = "fill"\ngrid = 1\nblock = 32\n[launch.args]\n{arg}\n{other}\n'
    with pytest.raises(SpecError, match=message):
        _args(checker, tmp_path, text)


def test_a_bit_field_struct_is_refused_with_the_reason(checker: Checker, tmp_path: Path) -> None:
    text = ('[[launch]]\nkernel = "flags"\ngrid = 1\nblock = 1\n[launch.args]\n'
            'f = { fields = { a = 1 } }\nout = { dtype = "int32", length = 1 }\n')  # fmt: skip
    with pytest.raises(SpecError, match="field a is a bit-field"):
        _args(checker, tmp_path, text)


def test_check_command_with_a_struct_spec(tmp_path: Path) -> None:
    (tmp_path / "structs.cu").write_text(SOURCE)
    (tmp_path / "s.toml").write_text(FILL.replace('kernel = "fill"', 'kernel = "fill"'))
    status = main(["check", str(tmp_path / "structs.cu"), "--backend", "cpu",
                   "--launch", str(tmp_path / "s.toml")])  # fmt: skip
    assert status == 0


def test_spec_and_no_spec_mode_make_struct_arguments(tmp_path: Path) -> None:
    """`hirace spec` writes struct fields by name, and the spec it writes runs."""
    source = tmp_path / "structs.cu"
    source.write_text(SOURCE)
    spec_path = tmp_path / "gen.toml"
    assert main(["spec", str(source), "-o", str(spec_path)]) == 0
    text = spec_path.read_text()
    assert 'p = { fields = { "n" = 32, "scale" = 1.0, "in.s" = 32, "in.d" = 1.0, "tag" = 32 } }' \
        in text
    assert 'cells = { dtype = "struct", length = 64, init = "random"' in text
    fill = text.split("[[launch]]")[1]
    (tmp_path / "fill.toml").write_text("[[launch]]" + fill)
    assert main(["check", str(source), "--backend", "cpu", "--launch",
                 str(tmp_path / "fill.toml")]) == 0  # fmt: skip
    assert main(["check", str(source), "--backend", "cpu", "--kernel", "spill"]) == 1
