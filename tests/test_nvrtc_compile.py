"""The GPU path compiles what users write, checked without a GPU.

Every litmus kernel (kernels/) and every instrumentation-corpus kernel is
instrumented and compiled by `hirace_py.backends.nvrtc.compile_module`, the
function the CuPy backend compiles with, with the options it uses. NVRTC
comes from the nvidia-cuda-nvrtc wheel (a test dependency) or a toolkit.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from hirace_py.backends import nvrtc
from hirace_py.backends.base import signatures
from hirace_py.cli import main
from hirace_py.instrument import instrument
from hirace_py.instrument.runtime import include_dir

ROOT = Path(__file__).parent.parent
FILES = sorted((ROOT / "kernels").rglob("*.cu")) + sorted(
    (ROOT / "tests" / "instrument_corpus").glob("*.cu")
)


def _nvrtc_present() -> bool:
    try:
        nvrtc.library()
    except nvrtc.NvrtcError:
        return False
    return True


NEEDS_NVRTC = pytest.mark.skipif(not _nvrtc_present(), reason="NVRTC not installed")


def _compile(path: Path, source: str | None = None) -> nvrtc.Compiled:
    result = instrument(path.read_text() if source is None else source, str(path))
    result.write_headers()
    names = nvrtc.kernel_names(signatures(result.tables.kernels))
    return nvrtc.compile_module(result.source, str(path), [include_dir(), str(path.parent)],
                                names=names)  # fmt: skip


def test_every_kernel_file_is_checked() -> None:
    assert len(FILES) >= 60


@NEEDS_NVRTC
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_kernel_compiles_for_the_gpu(path: Path) -> None:
    compiled = _compile(path)
    assert compiled.kind == "cubin" and compiled.binary.startswith(b"\x7fELF")
    for name, symbol in compiled.lowered.items():
        assert symbol.encode() in compiled.binary, name


@NEEDS_NVRTC
def test_kernels_that_include_host_and_cuda_headers_compile(tmp_path: Path) -> None:
    """What users write: host headers NVRTC lacks, a host function next to the
    kernel, a kernel in a namespace (found by its qualified name)."""
    source = """\
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <climits>
#include <cfloat>
#include <cuda_runtime.h>
#include <device_launch_parameters.h>
namespace app {
__global__ void k(uint32_t* a, float* f) {
  a[threadIdx.x] = UINT32_MAX - INT_MAX;
  f[threadIdx.x] = FLT_MAX;
  if (threadIdx.x == 0) printf("%u\\n", a[0]);
}
}
int host_only(int n) { int* p = (int*)malloc(n * sizeof(int)); free(p); return n; }
"""
    compiled = _compile(tmp_path / "user.cu", source)
    assert compiled.lowered["k"].startswith("_ZN3app1k")


@NEEDS_NVRTC
def test_a_compile_error_names_the_file_and_line(tmp_path: Path) -> None:
    source = "__global__ void k(int* a) {\n  a[0] = undeclared;\n}\n"
    expected = r"bad\.cu: NVRTC compilation failed:\nbad\.cu\(2\): error: identifier"
    with pytest.raises(nvrtc.NvrtcError, match=expected):
        nvrtc.compile_module(source, str(tmp_path / "bad.cu"), [], names={"k": "k"})


def _no_driver_cupy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stand in for CuPy on a machine without a driver: its device query fails."""

    class CUDARuntimeError(RuntimeError):
        pass

    def no_driver() -> int:
        raise CUDARuntimeError("cudaErrorInsufficientDriver: CUDA driver version is "
                               "insufficient for CUDA runtime version\nmore detail")  # fmt: skip

    fake = types.ModuleType("cupy")
    fake.cuda = types.SimpleNamespace(  # type: ignore[attr-defined]
        runtime=types.SimpleNamespace(getDeviceCount=no_driver)
    )
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.setitem(sys.modules, "hirace_py.backends.cupy_device",
                        types.ModuleType("hirace_py.backends.cupy_device"))  # fmt: skip


def test_cupy_without_a_driver_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """CuPy installed on a machine without a driver: `--backend cupy` says so in one
    line and exits 3, a tool failure (the module stands in for CuPy, whose device
    query fails as it does there)."""

    _no_driver_cupy(monkeypatch)
    kernel = tmp_path / "k.cu"
    kernel.write_text("__global__ void k(int* a) { a[threadIdx.x] = 1; }\n")
    (tmp_path / "spec.toml").write_text(
        '[[launch]]\nkernel = "k"\ngrid = 1\nblock = 32\n'
        '[launch.args]\na = { dtype = "int32", length = 32 }\n'
    )
    code = main(["check", str(kernel), "--launch", str(tmp_path / "spec.toml"),
                 "--backend", "cupy"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 3
    assert err == (
        "hirace: error: --backend cupy: no usable CUDA device (cudaErrorInsufficientDriver: "
        "CUDA driver version is insufficient for CUDA runtime version)\n"
    )


def test_a_suite_on_cupy_without_a_driver_stores_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The environment failure is one error before the run, not a result row per code."""
    _no_driver_cupy(monkeypatch)
    db = tmp_path / "results.sqlite"
    code = main(["check", str(ROOT / "indigo" / "minisuite"), "--inputs",
                 str(ROOT / "indigo" / "graphs" / "binary_tree_7.egr"), "--backend", "cupy",
                 "--db", str(db)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 3
    assert err.startswith("hirace: error: --backend cupy: no usable CUDA device (")
    assert err.count("\n") == 1
    assert not db.exists()
