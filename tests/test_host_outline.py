"""hirace_py.host_outline: the call wrappers as definitions, or as declarations.

The rendered header itself is checked by compiling programs with it
(tests/test_host_outlined.py: no unit defines a wrapper, the program runs);
here, on small texts, what the filter makes of each kind of top-level item.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hirace_py.host_outline import _split, outlined

SOURCE = """\
// A comment with an inline keyword and a { brace.
inline int plain(int a, int b = 2) {
  const char* s = "}{;";
  return a + b + s[0];
}

inline void one_line() { plain(1); }

inline int declared_only(int);

template <class T>
T twice(T x) { return x + x; }

template <class T>
inline T thrice(T x) { return x + x + x; }

struct Pair {
  int a;
  inline int sum() const { return a + a; }
};

inline int with_lambda(int n) {
  auto f = [](int k) { return k * 2; };
  return f(n) + '}';
}
"""


def test_definitions_become_host_fn_and_declarations() -> None:
    bodies, decls = _split(SOURCE)
    expected = SOURCE
    for name in ("int plain", "void one_line", "int with_lambda"):
        expected = expected.replace(f"inline {name}", f"HIRACE_HOST_FN {name}")
    assert bodies == expected
    assert "int plain(int a, int b = 2);" in decls
    assert "void one_line();" in decls
    assert "int with_lambda(int n);" in decls
    assert "return a + b" not in decls and "auto f" not in decls
    # Declarations, templates (also one marked inline) and members stay as written.
    for kept in ("inline int declared_only(int);", "T twice(T x) { return x + x; }",
                 "inline T thrice(T x) { return x + x + x; }",
                 "inline int sum() const { return a + a; }",
                 "// A comment with an inline keyword and a { brace."):  # fmt: skip
        assert kept in bodies and kept in decls


def test_outlined_wraps_both_renderings() -> None:
    text = outlined(SOURCE)
    assert text.startswith("#if HIRACE_HOST_BODIES\n")
    assert text.count("#else\n") == 1 and text.endswith("#endif\n")


_NAMES = st.from_regex(r"f[a-z]{0,6}", fullmatch=True)


_BODIES = st.sampled_from(["{ return 1; }", "{ if (x) { return 2; } return '{'; }", ";"])


@given(st.lists(st.tuples(_NAMES, _BODIES), min_size=1, max_size=6, unique_by=lambda t: t[0]))
def test_each_definition_is_one_declaration(items: list[tuple[str, str]]) -> None:
    text = "".join(f"inline int {name}(int x) {body}\n\n" for name, body in items)
    bodies, decls = _split(text)
    assert bodies.replace("HIRACE_HOST_FN ", "inline ") == text
    for name, body in items:
        if body == ";":
            assert f"inline int {name}(int x) ;" in decls
        else:
            assert re.search(rf"^int {name}\(int x\);$", decls, re.M)
    assert "return" not in decls


@pytest.mark.skipif(
    shutil.which("g++") is None or shutil.which("nm") is None, reason="needs g++ and nm"
)
def test_both_renderings_compile_and_link(tmp_path: Path) -> None:
    header = tmp_path / "calls.h"
    header.write_text(f"#ifndef HIRACE_HOST_FN\n#define HIRACE_HOST_FN inline\n#endif\n"
                      f"{outlined(SOURCE)}")  # fmt: skip
    (tmp_path / "defs.cpp").write_text("#define HIRACE_HOST_BODIES 1\n#define HIRACE_HOST_FN\n"
                                       '#include "calls.h"\n'
                                       "int declared_only(int x) { return x; }\n")  # fmt: skip
    (tmp_path / "unit.cpp").write_text('#define HIRACE_HOST_BODIES 0\n#include "calls.h"\n'
                                       "int main() { one_line(); return plain(1) == 3 + '}' "
                                       "&& with_lambda(1) == 2 + '}' ? 0 : 1; }\n")  # fmt: skip
    unit = tmp_path / "unit.o"
    subprocess.run(["g++", "-std=gnu++17", "-c", str(tmp_path / "unit.cpp"), "-o", str(unit)],
                   check=True, capture_output=True)  # fmt: skip
    symbols = subprocess.run(["nm", "-C", str(unit)], capture_output=True, text=True,
                             check=True).stdout  # fmt: skip
    # The unit calls the wrappers and compiles none of them.
    assert re.search(r" U plain\(int, int\)$", symbols, re.M), symbols
    assert not re.search(r" [TtWw] (plain|one_line|with_lambda)\(", symbols), symbols
    exe = tmp_path / "a.out"
    subprocess.run(["g++", "-std=gnu++17", str(unit), str(tmp_path / "defs.cpp"), "-o", str(exe)],
                   check=True, capture_output=True)  # fmt: skip
    assert subprocess.run([str(exe)], check=False).returncode == 0
