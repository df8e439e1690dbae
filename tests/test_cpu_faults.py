"""CPU backend: kernel faults become clear errors, never hangs or crashes.

Each kernel in tests/cpu_kernels/faults.cu goes wrong in one way; the tests
check the error's type, what it names (kernel, block, thread, source line,
argument, element) and that the Python process carries on.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

from hirace_py.backends import cpu
from hirace_py.errors import HiraceError

KERNELS = Path(__file__).parent / "cpu_kernels"
FAULTS = KERNELS / "faults.cu"


@functools.cache
def faults() -> cpu.Module:
    return cpu.compile(FAULTS.read_text(), filename=str(FAULTS))


def line_of(text: str) -> int:
    """1-based line of the first line of faults.cu containing `text`."""
    for number, line in enumerate(FAULTS.read_text().splitlines(), 1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} not in {FAULTS}")


def kernel_lines(kernel: str, text: str) -> list[int]:
    """1-based lines of faults.cu inside kernel `kernel` that contain `text`."""
    lines = FAULTS.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if f" {kernel}(" in line)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("}"))
    return [i + 1 for i in range(start, end) if text in lines[i]]


def test_threads_at_different_barriers_is_divergence_naming_both_lines() -> None:
    out = np.zeros(64, np.int32)
    with pytest.raises(cpu.BarrierDivergence) as info:
        faults().launch("two_barriers", 2, 64, [out])
    err = info.value
    assert isinstance(err, HiraceError)
    assert (err.kernel, err.block, err.exited) == ("two_barriers", (0, 0, 0), False)
    first, second = kernel_lines("two_barriers", "__syncthreads()")
    sites = sorted(err.sites, key=lambda s: s.line)
    assert [(s.line, s.threads, s.first_thread) for s in sites] == [
        (first, 32, 0),
        (second, 32, 32),
    ]
    assert all(s.file == str(FAULTS) and s.operation == "__syncthreads()" for s in sites)
    assert f"{FAULTS}:{first}" in str(err) and f"{FAULTS}:{second}" in str(err)


def test_exited_threads_at_a_barrier_are_divergence_by_default() -> None:
    data = np.arange(100, dtype=np.int32)
    out = np.zeros(100, np.int32)
    with pytest.raises(cpu.BarrierDivergence) as info:
        faults().launch("early_exit", 2, 64, [data, out, 100])
    err = info.value
    assert err.block == (1, 0, 0)  # block 0 is full; block 1 has 36 threads below n
    assert err.exited
    (barrier,) = kernel_lines("early_exit", "__syncthreads()")
    assert [(s.line, s.threads) for s in err.sites] == [(barrier, 36)]
    assert "threads 36-63 have exited" in str(err)


def test_exited_threads_may_count_as_arrived() -> None:
    data = np.arange(100, dtype=np.int32)
    out = np.zeros(100, np.int32)
    faults().launch("early_exit", 2, 64, [data, out, 100], exited_threads="arrive")
    # Each thread reads its right neighbour's slot; the last live thread of
    # block 1 reads a slot no thread of that block wrote, so skip it.
    blocks, lanes = np.divmod(np.arange(99), 64)
    np.testing.assert_array_equal(out[:99], data[blocks * 64 + (lanes + 1) % 64])


def test_warp_operation_against_block_barrier_is_divergence() -> None:
    out = np.zeros(32, np.int32)
    with pytest.raises(cpu.BarrierDivergence) as info:
        faults().launch("shuffle_vs_barrier", 1, 32, [out])
    operations = sorted((s.operation, s.threads) for s in info.value.sites)
    assert operations == [("__shfl_xor_sync()", 16), ("__syncthreads()", 16)]
    assert "mask 0xffffffff" in str(info.value)


def test_mask_without_the_calling_lane_is_a_kernel_error() -> None:
    out = np.zeros(32, np.int32)
    with pytest.raises(cpu.KernelError, match="does not include the calling lane 1") as info:
        faults().launch("bad_mask", 1, 32, [out])
    assert f"{FAULTS}:{line_of('__shfl_sync(0x1u')}" in str(info.value)


@pytest.mark.parametrize("isolate", [True, False])
def test_launch_past_its_time_limit_is_stopped(isolate: bool) -> None:
    flags = np.zeros(2, np.int32)
    with pytest.raises(cpu.KernelTimeout) as info:
        faults().launch("wait_for_other_block", 2, 32, [flags], timeout=0.3, isolate=isolate)
    assert info.value.limit == 0.3
    assert "time limit of 0.3 CPU s" in str(info.value)
    # Blocks run one after another: block 0 waits for a block that never starts.
    assert info.value.block == (0, 0, 0)


def test_a_loop_that_never_yields_is_killed_at_the_time_limit() -> None:
    flag = np.zeros(1, np.int32)
    with pytest.raises(cpu.KernelTimeout, match="spin_forever"):
        faults().launch("spin_forever", 1, 1, [flag], timeout=0.3)
    # The process is fine and the module still works afterwards.
    flag[0] = 1
    faults().launch("spin_forever", 1, 1, [flag], timeout=5)


def test_off_by_one_write_past_an_argument_is_out_of_bounds() -> None:
    out = np.zeros(1000, np.float32)
    with pytest.raises(cpu.OutOfBounds) as info:
        faults().launch("off_by_one", 4, 256, [out, 1000])
    err = info.value
    assert (err.argument, err.index, err.length, err.write) == ("out", 1000, 1000, True)
    assert err.block == (3, 0, 0) and err.thread == (1000 - 768, 0, 0)
    assert err.location == f"{FAULTS}:{line_of('if (i <= n) out[i]')}"
    assert "argument `out` at element 1000 (length 1000)" in str(err)
    assert np.all(out == 1.0)  # what ran before the fault was copied back


def test_read_far_before_an_argument_is_out_of_bounds() -> None:
    data = np.zeros(4096, np.int32)  # whole pages: the guard page is right below
    out = np.zeros(32, np.int32)
    with pytest.raises(cpu.OutOfBounds) as info:
        faults().launch("negative_index", 1, 32, [data, out])
    err = info.value
    assert (err.argument, err.index, err.length, err.write) == ("in", -1024, 4096, False)


def test_access_past_dynamic_shared_memory_is_out_of_bounds() -> None:
    out = np.zeros(64, np.float32)
    with pytest.raises(cpu.OutOfBounds) as info:
        faults().launch("shared_overrun", 1, 64, [out], shared_bytes=40 * 4)
    err = info.value
    assert err.argument == "dynamic shared memory"
    assert (err.index, err.length, err.write) == (160, 160, True)
    assert err.thread == (40, 0, 0)


def test_shared_array_arguments_are_bounds_checked_in_place() -> None:
    out = cpu.shared_array(1000, np.float32)
    with pytest.raises(cpu.OutOfBounds) as info:
        faults().launch("off_by_one", 4, 256, [out, 1000])
    assert (info.value.argument, info.value.index) == ("out", 1000)
    assert np.all(out == 1.0)


def test_integer_division_by_zero_is_a_crash_with_its_line() -> None:
    a = np.ones(32, np.int32)
    out = np.zeros(32, np.int32)
    with pytest.raises(cpu.KernelCrash) as info:
        faults().launch("divide", 1, 32, [a, out, 0])
    assert info.value.signal_name == "SIGFPE"
    assert info.value.location == f"{FAULTS}:{line_of('a[threadIdx.x] / d')}"


def test_stack_overflow_is_reported() -> None:
    out = np.zeros(1, np.int32)
    with pytest.raises(cpu.KernelCrash, match=r"stack overflow.*HIRACE_STACK_KB"):
        faults().launch("overflow_stack", 1, 1, [out, 1_000_000])
    faults().launch("overflow_stack", 1, 1, [out, 10])
    assert out[0] == sum(range(11))


def test_null_pointer_write_is_a_crash() -> None:
    with pytest.raises(cpu.KernelCrash, match="null pointer") as info:
        faults().launch("null_write", 1, 8, [None])
    assert info.value.signal_name == "SIGSEGV"


def test_trap_is_a_kernel_error_naming_the_thread() -> None:
    out = np.zeros(8, np.int32)
    with pytest.raises(cpu.KernelError, match=r"__trap\(\)") as info:
        faults().launch("trapping", 1, 8, [out])
    assert info.value.thread == (3, 0, 0)


def test_divergence_is_reported_in_process_too() -> None:
    out = np.zeros(64, np.int32)
    with pytest.raises(cpu.BarrierDivergence):
        faults().launch("two_barriers", 1, 64, [out], isolate=False)
    # The engine recovers: the next in-process launch runs normally.
    data = np.arange(64, dtype=np.int32)
    faults().launch("early_exit", 1, 64, [data, out, 64], isolate=False)
    np.testing.assert_array_equal(out, np.roll(data, -1))


def test_compile_error_shows_the_compiler_message_and_line() -> None:
    source = "__global__ void k(int* a) {\n  a[0] = 1;\n  a[1] = undefined_name;\n}\n"
    with pytest.raises(cpu.CompileError) as info:
        cpu.compile(source, filename="broken.cu")
    err = info.value
    assert (err.file, err.line) == ("broken.cu", 3)
    assert "undefined_name" in str(err) and "broken.cu:3" in str(err)
    assert "a[1] = undefined_name;" in str(err)
    assert isinstance(err, HiraceError)


def test_compile_error_in_an_unnamed_source_quotes_the_line() -> None:
    with pytest.raises(cpu.CompileError) as info:
        cpu.compile("__global__ void k(float* a) {\n  a[0] = missing(1);\n}\n")
    assert info.value.line == 2
    assert "<source>:2: a[0] = missing(1);" in str(info.value)
