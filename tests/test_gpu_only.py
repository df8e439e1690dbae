"""GPU-only features (the catalogue's [gpu_only]): instrumented for the GPU,
counted in the report, refused by the CPU backend.

Each tests/gpu_only/*.cu is our own minimal use of one family. It must
instrument (a parse that knows the family), name every `// warns:` use in a
`gpu-only` warning (nothing silent) and no other family (nothing that only a
system header uses), still compile with `nvcc -c` once
instrumented (where nvcc is), and, for the CPU backend, stop with the one line
its `// refuses:` comment gives, at the first line that uses it (exit 2).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from hirace_py import cli
from hirace_py.checker import include_dir
from hirace_py.instrument import instrument

HERE = Path(__file__).parent / "gpu_only"
SOURCES = sorted(HERE.glob("*.cu"))
REFUSED = [p for p in SOURCES if "// refuses:" in p.read_text()]


def _comments(path: Path, key: str) -> list[str]:
    return re.findall(rf"^// {key}: (.*)$", path.read_text(), re.M)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_instruments_with_every_use_counted(path: Path, tmp_path: Path) -> None:
    result = instrument(path.read_text(), str(path), header_dir=tmp_path / "headers")
    gpu_only = [w for w in result.tables.warnings if w.code == "gpu-only"]
    named = {w.message.split(" runs on the GPU")[0] for w in gpu_only}
    expected = {w for w in _comments(path, "warns") if w != "nothing GPU-only"}
    assert expected <= named, named
    families = {w.split(" (")[0] for w in named}
    assert families == {w.split(" (")[0] for w in expected}, families
    for callee in _comments(path, "system-code"):
        assert any(w.code == "system-code" and f"'{callee}'" in w.message
                   for w in result.tables.warnings)  # fmt: skip


@pytest.mark.parametrize("path", REFUSED, ids=lambda p: p.stem)
def test_cpu_backend_refuses_in_one_line(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (refusal,) = _comments(path, "refuses")
    what = re.search(r"\(([^()]*)\)$", refusal)[1]  # type: ignore[index]
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1)
                if not text.startswith("//") and what in text)  # fmt: skip
    expected = f"hirace: error: {path}:{line}: {refusal}: not supported by hirace's CPU backend"
    status = cli.main(["instrument", str(path), "--target", "cpu", "-o", str(tmp_path / "o.cu")])
    assert (status, capsys.readouterr().err.strip()) == (2, expected)
    status = cli.main(["build", "--cpu", str(path), "-o", str(tmp_path / "prog")])
    err = capsys.readouterr().err.strip()
    assert (status, err.splitlines()[-1]) == (2, expected)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_instrumented_copy_compiles_with_nvcc(path: Path, tmp_path: Path) -> None:
    result = instrument(path.read_text(), str(path), header_dir=tmp_path / "headers")
    result.write_headers()
    out = tmp_path / f"{path.stem}.hirace.cu"
    out.write_text(result.source)
    proc = subprocess.run(
        ["nvcc", "-c", "-arch=sm_80", "-std=c++17", "-I", include_dir(), "-I", str(HERE),
         "-o", str(out.with_suffix(".o")), str(out)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
