"""CPU backend API: compile options and caching, argument checking, globals,
shared arrays, printf capture, schedules and launch options."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hirace_py.backends import cpu

KERNELS = Path(__file__).parent / "cpu_kernels"

SAXPY = """
__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


@functools.cache
def module(name: str, **defines: str) -> cpu.Module:
    path = KERNELS / name
    return cpu.compile(path.read_text(), defines=defines or None, filename=str(path))


@functools.cache
def saxpy() -> cpu.Module:
    return cpu.compile(SAXPY)


def test_saxpy_through_the_public_api() -> None:
    n = 1000
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, np.float32)
    result = saxpy().launch("saxpy", (n + 127) // 128, 128, [n, np.float32(2.0), x, y])
    np.testing.assert_array_equal(y, 2 * np.arange(n) + 1)
    assert result.seconds >= 0
    assert (result.kernel, result.grid, result.block) == ("saxpy", (8, 1, 1), (128, 1, 1))


def test_compile_is_cached_by_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIRACE_CACHE", str(tmp_path))
    first = cpu.compile(SAXPY)
    again = cpu.compile(SAXPY)
    changed = cpu.compile(SAXPY, defines={"UNUSED": 1})
    assert first.library == again.library
    assert changed.library != first.library
    assert first.library.parent.parent == tmp_path
    assert len(list((tmp_path / "kernels").glob("*.so"))) == 2


def test_local_header_contents_are_part_of_the_cache_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HIRACE_CACHE", str(tmp_path / "cache"))
    header = tmp_path / "value.cuh"
    source = tmp_path / "k.cu"
    source.write_text('#include "value.cuh"\n__global__ void k(int* o) { o[0] = VALUE; }\n')
    out = np.zeros(1, np.int32)
    for value in (3, 4):
        header.write_text(f"#define VALUE {value}\n")
        cpu.compile(source.read_text(), filename=str(source)).launch("k", 1, 1, [out])
        assert out[0] == value


def test_include_dirs_and_defines(tmp_path: Path) -> None:
    (tmp_path / "consts.h").write_text("#define SCALE 3\n")
    source = '#include "consts.h"\n__global__ void k(int* o) { o[0] = SCALE * OFFSET; }\n'
    mod = cpu.compile(source, defines={"OFFSET": 5}, include_dirs=[tmp_path])
    out = np.zeros(1, np.int32)
    mod.launch("k", 1, 1, [out])
    assert out[0] == 15


def test_kernels_in_inactive_branches_are_not_launchable() -> None:
    assert "extra" not in module("misc.cu").kernels
    assert "disabled" not in module("misc.cu").kernels
    out = np.zeros(1, np.int32)
    with_extra = module("misc.cu", WITH_EXTRA="1", EXTRA_VALUE="17")
    with_extra.launch("extra", 1, 1, [out])
    assert out[0] == 17


def test_struct_and_vector_parameters_by_value() -> None:
    params = np.zeros(1, dtype=[("scale", "<i4"), ("bias", "<f4"), ("weights", "<f8", 2)])
    params[0] = (3, 0.5, (2.0, 4.0))
    out = np.zeros(16, np.float32)
    mod = module("misc.cu")
    mod.launch("kernels::affine", 1, 16, [params[0], np.array([4, 10], np.int32), out])
    i = np.arange(16)
    np.testing.assert_array_equal(out, np.where((i >= 4) & (i < 10), 3 * i + 0.5 + 8.0, 0))
    mod.launch("affine", 1, 16, [params.tobytes(), np.array([0, 2], np.int32), out])
    assert out[0] == 8.5


def test_each_thread_has_its_own_parameter_copies() -> None:
    out, other = np.zeros(8, np.int32), np.zeros(8, np.int32)
    module("misc.cu").launch("private_params", 1, 8, [100, out, other])
    np.testing.assert_array_equal(out, 100 + np.arange(8))
    np.testing.assert_array_equal(other, 2 * (100 + np.arange(8)))


def test_bool_and_char_parameters() -> None:
    out = np.zeros(4, np.uint8)
    module("misc.cu").launch("bool_and_char", 1, 4, [True, 65, out])
    np.testing.assert_array_equal(out, [65, 66, 67, 68])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([10, 2.0, np.zeros(10, np.float32)],
         r"takes 4 arguments \(int n, float a, const float\* x"),
        ([10, 2.0, np.zeros(10, np.float64), np.zeros(10, np.float32)],
         r"argument 2 `x` \(const float\*\) expects a NumPy array of float32"),
        ([10, 2.0, np.zeros(10, np.float32), np.zeros(10, np.int32)],
         r"argument 3 `y` \(float\*\) expects a NumPy array of float32"),
        ([10.5, 2.0, np.zeros(10, np.float32), np.zeros(10, np.float32)],
         r"argument 0 `n` \(int\) expects an integer"),
        ([2**31, 2.0, np.zeros(10, np.float32), np.zeros(10, np.float32)],
         r"argument 0 `n` \(int\) expects an integer in \[-2147483648, 2147483647\]"),
        ([10, "2", np.zeros(10, np.float32), np.zeros(10, np.float32)],
         r"argument 1 `a` \(float\) expects a real number"),
        ([10, 2.0, [1.0] * 10, np.zeros(10, np.float32)],
         r"argument 2 `x` \(const float\*\) expects a NumPy array of float32 or None"),
        ([10, 2.0, np.zeros(10, np.float32), np.zeros((10, 2), np.float32)[:, 0]],
         r"argument 3 `y` \(float\*\) needs a C-contiguous array"),
        ([10, 2.0, np.zeros(10, np.float32), np.frombuffer(bytes(40), np.float32)],
         r"argument 3 `y` \(float\*\) may be written by the kernel, but the array is read-only"),
    ],
)  # fmt: skip
def test_argument_mismatches_are_type_errors_naming_the_parameter(
    args: list[object], message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        saxpy().launch("saxpy", 1, 32, args)


def test_read_only_arrays_are_fine_for_const_pointers() -> None:
    x = np.frombuffer(np.arange(4, dtype=np.float32).tobytes(), np.float32)
    y = np.zeros(4, np.float32)
    saxpy().launch("saxpy", 1, 4, [4, 1.0, x, y])
    np.testing.assert_array_equal(y, [0, 1, 2, 3])


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"name": "nope"}, cpu.LaunchError, r"no kernel `nope` .* \(kernels: saxpy\)"),
        ({"block": 2048}, cpu.LaunchError, r"block.x is 2048, it must be between 1 and 1024"),
        ({"block": (32, 32, 2)}, cpu.LaunchError, "block has 2048 threads"),
        ({"grid": (1, 70000)}, cpu.LaunchError, "grid.y is 70000"),
        ({"grid": 0}, cpu.LaunchError, "grid.x is 0"),
        ({"grid": "4"}, TypeError, "grid must be an int or a tuple"),
        ({"shared_bytes": 10**7}, cpu.LaunchError, "shared_bytes must be an int between"),
        ({"schedule": "fifo"}, cpu.LaunchError, "schedule must be one of"),
        ({"exited_threads": "ignore"}, cpu.LaunchError, "exited_threads must be one of"),
        ({"timeout": 0}, cpu.LaunchError, "timeout must be a positive number"),
    ],
)
def test_bad_launch_configurations(kwargs: dict, error: type, message: str) -> None:
    launch = {"name": "saxpy", "grid": 1, "block": 32, "args": [0, 1.0, None, None]} | kwargs
    with pytest.raises(error, match=message):
        saxpy().launch(**launch)


def test_template_kernels_are_refused_with_a_reason() -> None:
    with pytest.raises(cpu.LaunchError, match=r"`fill` .* is a template"):
        module("templates.cu").launch("fill", 1, 1, [np.zeros(1, np.int32), 1])


def test_printf_output_is_captured_and_echoed(capsys: pytest.CaptureFixture[str]) -> None:
    result = module("misc.cu").launch("hello", 2, 32, [7])
    expected = "".join(
        f"hello from block {b} thread {t} tag 7\n" for b in range(2) for t in range(2)
    )
    assert result.stdout == expected
    assert capsys.readouterr().out == expected
    in_process = module("misc.cu").launch("hello", 1, 32, [8], isolate=False)
    assert in_process.stdout.endswith("thread 1 tag 8\n")
    quiet = module("misc.cu").launch("hello", 1, 32, [9], echo=False)
    assert quiet.stdout.endswith("thread 1 tag 9\n")
    assert "tag 9" not in capsys.readouterr().out


def test_constant_and_device_variables_from_the_host() -> None:
    mod = cpu.compile((KERNELS / "globals.cu").read_text(), filename="globals.cu")
    mod.write_global("coefficients", np.array([1, 2, 0.5, -1], np.float32).tobytes())
    x = np.linspace(-2, 2, 50, dtype=np.float32)
    y = np.zeros_like(x)
    mod.launch("polynomial", 1, 64, [x, y, x.size])
    np.testing.assert_allclose(y, 1 + 2 * x + 0.5 * x**2 - x**3, rtol=1e-6, atol=1e-6)
    assert mod.global_size("coefficients") == 16
    assert mod.read_global("coefficients", 8) == np.array([1, 2], np.float32).tobytes()
    with pytest.raises(cpu.LaunchError, match="has 16 bytes"):
        mod.write_global("coefficients", bytes(20))
    with pytest.raises(cpu.LaunchError, match="no __device__ or __constant__ variable `nope`"):
        mod.global_address("nope")


def test_device_pointer_to_a_shared_array_sees_isolated_writes() -> None:
    mod = cpu.compile((KERNELS / "globals.cu").read_text(), filename="globals.cu")
    results = cpu.shared_array(32, np.int32)
    mod.write_global("results", results.ctypes.data.to_bytes(8, "little"))
    mod.write_global("settings::offset", (1000).to_bytes(4, "little", signed=True))
    mod.launch("through_pointer", 1, 32, [])
    np.testing.assert_array_equal(results, 1000 + np.arange(32))
    # A write to a __device__ variable itself happens in the child process...
    assert mod.read_global("launches", 8) == bytes(8)
    # ...but in-process launches change it here.
    mod.launch("through_pointer", 1, 32, [], isolate=False)
    assert int.from_bytes(mod.read_global("launches", 8), "little") == 1


def test_shared_arrays_are_used_in_place() -> None:
    x = cpu.shared_array(64, np.float32)
    x[:] = np.arange(64)
    y = cpu.shared_array((8, 8), np.float32)
    saxpy().launch("saxpy", 1, 64, [64, 3.0, x, y])
    np.testing.assert_array_equal(y.reshape(-1), 3 * np.arange(64))
    assert y.shape == (8, 8) and y.dtype == np.float32


def test_same_seed_same_interleaving_and_seeds_differ() -> None:
    mod = module("misc.cu")

    def run(schedule: str, seed: int) -> tuple[int, ...]:
        out = np.zeros(64, np.int32)
        mod.launch("racy_neighbour", 1, 64, [out], schedule=schedule, seed=seed)
        return tuple(out)

    inorder = run("inorder", 0)
    assert inorder == tuple((np.arange(64) + 32) % 64 + 1)
    assert run("inorder", 5) == inorder
    outcomes = {run("random", seed) for seed in range(12)}
    assert run("random", 3) == run("random", 3)
    assert len(outcomes) > 1
    assert any(0 in outcome for outcome in outcomes)


def test_portable_context_switch_gives_the_same_results(tmp_path: Path) -> None:
    script = """
import numpy as np
from hirace_py.backends import cpu
src = open(%r).read()
mod = cpu.compile(src, filename=%r)
data = np.arange(4 * 256, dtype=np.float32)
out = np.zeros(4, np.float32)
mod.launch("block_reduce", 4, 256, [data, out, data.size], schedule="random")
print(out.tolist())
"""
    path = KERNELS / "reductions.cu"
    env = dict(os.environ, HIRACE_FIBERS="ucontext", HIRACE_CACHE=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, "-c", script % (str(path), str(path))],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    expected = np.arange(4 * 256, dtype=np.float64).reshape(4, 256).sum(axis=1)
    assert json.loads(proc.stdout) == expected.tolist()
    (library,) = tmp_path.glob("runtime-*/libhirace_cuda_cpu.so")
    assert b"swapcontext" in library.read_bytes()


STANDALONE = r"""
// A whole program for the CPU: host code calls hr::run_grid where nvcc code
// would say add_rows<<<grid, block>>>(...).
__global__ void add_rows(const int* in, int* out, int width) {
    __shared__ int row[64];
    row[threadIdx.x] = in[blockIdx.x * width + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * width + threadIdx.x] = row[threadIdx.x] + row[(threadIdx.x + 1) % width];
}

int main() {
    int in[4 * 64], out[4 * 64];
    for (int i = 0; i < 4 * 64; ++i) in[i] = i;
    hr::LaunchOptions options;
    options.kernel_name = "add_rows";
    hr_status status;
    auto body = [&] { add_rows(in, out, 64); };
    int code = hr::run_grid(dim3(4), dim3(64), 0, options, body, &status);
    long long total = 0;
    for (int v : out) total += v;
    printf("code %d total %lld\n", code, total);
    return code;
}
"""


def test_runtime_header_serves_a_standalone_program(tmp_path: Path) -> None:
    from hirace_py.backends.cpu_runtime import LIBRARY_NAME, runtime

    rt = runtime()
    source = tmp_path / "program.cpp"
    source.write_text(STANDALONE)
    binary = tmp_path / "program"
    subprocess.run(
        [rt.cxx, *rt.flags, "-include", str(rt.directory / "cuda_cpu.h"), str(source),
         "-o", str(binary), f"-L{rt.directory}", f"-l:{LIBRARY_NAME}",
         f"-Wl,-rpath,{rt.directory}"],
        check=True, capture_output=True,
    )  # fmt: skip
    run = subprocess.run([str(binary)], capture_output=True, text=True, check=False)
    values = np.arange(4 * 64).reshape(4, 64)
    expected = int((values + np.roll(values, -1, axis=1)).sum())
    assert (run.returncode, run.stdout) == (0, f"code 0 total {expected}\n")


def test_modules_do_not_share_static_locals_of_inline_functions() -> None:
    source = """
__device__ __forceinline__ int* slots() { __shared__ int s[%d]; return s; }
__global__ void where(unsigned long long* out) { out[0] = (unsigned long long)slots(); }
"""
    small, large = cpu.compile(source % 4), cpu.compile(source % 4096)
    addresses = np.zeros(2, np.uint64)
    small.launch("where", 1, 1, [addresses[:1]])
    large.launch("where", 1, 1, [addresses[1:]])
    assert addresses[0] != addresses[1]
