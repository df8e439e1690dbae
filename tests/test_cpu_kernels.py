"""CPU backend: CUDA kernels computed on the CPU agree with NumPy references.

The kernels live in tests/cpu_kernels/ and are plain CUDA (they compile with
nvcc unchanged). Each test launches one and compares with NumPy.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

from hirace_py.backends import cpu

KERNELS = Path(__file__).parent / "cpu_kernels"


@functools.cache
def module(name: str) -> cpu.Module:
    path = KERNELS / name
    return cpu.compile(path.read_text(), filename=str(path))


@pytest.mark.parametrize("schedule", ["inorder", "random"])
def test_block_reduce_with_shared_memory_and_barriers(schedule: str) -> None:
    rng = np.random.default_rng(1)
    n = 256 * 37 + 100
    data = rng.random(n, dtype=np.float32)
    blocks = (n + 255) // 256
    out = np.zeros(blocks, np.float32)
    module("reductions.cu").launch(
        "block_reduce", blocks, 256, [data, out, n], schedule=schedule, seed=7
    )
    padded = np.zeros(blocks * 256, np.float32)
    padded[:n] = data
    np.testing.assert_allclose(out, padded.reshape(blocks, 256).sum(axis=1), rtol=1e-5)


def test_warp_shuffle_reduction() -> None:
    rng = np.random.default_rng(2)
    n = 10_000
    data = rng.integers(-1000, 1000, n, dtype=np.int32)
    out = np.zeros(1, np.int32)
    module("reductions.cu").launch("shuffle_reduce", (n + 255) // 256, 256, [data, out, n])
    assert out[0] == data.sum()


def test_xor_butterfly_gives_every_lane_the_warp_maximum() -> None:
    rng = np.random.default_rng(3)
    data = rng.standard_normal(4 * 64).astype(np.float32)
    out = np.zeros_like(data)
    module("reductions.cu").launch("xor_allreduce_max", 4, 64, [data, out])
    expected = np.repeat(data.reshape(-1, 32).max(axis=1), 32)
    np.testing.assert_array_equal(out, expected)


def test_two_dimensional_blocks_reduce_rows_in_dynamic_shared_memory() -> None:
    rng = np.random.default_rng(4)
    width, rows_per_block, blocks = 32, 4, 6
    data = rng.random((blocks * rows_per_block, width))
    out = np.zeros(blocks * rows_per_block)
    module("reductions.cu").launch(
        "row_sums_2d",
        blocks,
        (width, rows_per_block),
        [data, out, width],
        shared_bytes=width * rows_per_block * 8,
    )
    np.testing.assert_allclose(out, data.sum(axis=1))


def test_inclusive_scan_in_shared_memory() -> None:
    rng = np.random.default_rng(5)
    n = 300
    data = rng.integers(-50, 50, n, dtype=np.int32)
    out = np.zeros(n, np.int32)
    module("scan.cu").launch("inclusive_scan", 1, 512, [data, out, n])
    np.testing.assert_array_equal(out, np.cumsum(data))


@pytest.mark.parametrize("schedule", ["inorder", "random"])
def test_warp_scan_with_shuffle_up(schedule: str) -> None:
    rng = np.random.default_rng(6)
    data = rng.integers(0, 100, 3 * 256, dtype=np.uint32)
    out = np.zeros_like(data)
    module("scan.cu").launch("warp_scan", 3, 256, [data, out], schedule=schedule, seed=11)
    expected = np.cumsum(data.reshape(3, 256), axis=1).reshape(-1).astype(np.uint32)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("kernel", ["histogram_global", "histogram_shared"])
def test_histogram_with_atomics(kernel: str) -> None:
    rng = np.random.default_rng(7)
    data = rng.integers(0, 256, 50_000, dtype=np.uint8)
    bins = np.zeros(256, np.uint32)
    module("histogram.cu").launch(kernel, 12, 128, [data, data.size, bins], schedule="random")
    np.testing.assert_array_equal(bins, np.bincount(data, minlength=256))


def test_tiled_transpose_with_two_dimensional_blocks() -> None:
    rows, cols = 45, 70
    data = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
    out = np.zeros((cols, rows), np.float32)
    grid = ((cols + 15) // 16, (rows + 15) // 16)
    module("matrix.cu").launch("transpose", grid, (16, 16), [data, out, rows, cols])
    np.testing.assert_array_equal(out, data.T)


def test_tiled_matrix_multiply() -> None:
    rng = np.random.default_rng(8)
    m, k, n = 37, 50, 29
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    grid = ((n + 15) // 16, (m + 15) // 16)
    module("matrix.cu").launch("matmul", grid, (16, 16), [a, b, c, m, k, n], schedule="random")
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_syncthreads_count_and_or() -> None:
    rng = np.random.default_rng(9)
    blocks = 5
    values = rng.integers(-3, 10, blocks * 128, dtype=np.int32)
    values[128:256] = np.abs(values[128:256]) + 1  # block 1: all positive
    values[256:384] = -1  # block 2: none positive
    counts, alls, anys = (np.zeros(blocks, np.int32) for _ in range(3))
    module("voting.cu").launch("count_positive", blocks, 128, [values, counts, alls, anys])
    positive = values.reshape(blocks, 128) > 0
    np.testing.assert_array_equal(counts, positive.sum(axis=1))
    np.testing.assert_array_equal(alls, positive.all(axis=1))
    np.testing.assert_array_equal(anys, positive.any(axis=1))


def test_ballot_popc_any_all() -> None:
    rng = np.random.default_rng(10)
    values = rng.integers(0, 1000, 4 * 64, dtype=np.int32)
    values[32:64] = 1  # warp 1: all odd
    values[64:96] = 2  # warp 2: none odd
    warps = values.size // 32
    ballots = np.zeros(warps, np.uint32)
    pops = np.zeros(warps, np.int32)
    any_all = np.zeros(2 * warps, np.int32)
    module("voting.cu").launch("warp_votes", 4, 64, [values, ballots, pops, any_all])
    odd = (values.reshape(warps, 32) & 1).astype(bool)
    expected = (odd * (1 << np.arange(32, dtype=np.uint64))).sum(axis=1).astype(np.uint32)
    np.testing.assert_array_equal(ballots, expected)
    np.testing.assert_array_equal(pops, odd.sum(axis=1))
    np.testing.assert_array_equal(any_all[0::2], odd.any(axis=1))
    np.testing.assert_array_equal(any_all[1::2], odd.all(axis=1))


def test_ballot_in_a_partial_warp_has_only_existing_lanes() -> None:
    out = np.zeros(2, np.uint32)
    module("voting.cu").launch("partial_warp_ballot", 1, 48, [out])
    np.testing.assert_array_equal(out, [0xFFFFFFFF, 0x0000FFFF])


def test_dynamic_shared_memory_is_per_launch_sized() -> None:
    rng = np.random.default_rng(12)
    n, blocks = 96, 3
    data = rng.random(n * blocks, dtype=np.float32)
    out = np.zeros_like(data)
    module("shared.cu").launch("reverse_dynamic", blocks, n, [data, out, n], shared_bytes=n * 4)
    np.testing.assert_array_equal(out, data.reshape(blocks, n)[:, ::-1].reshape(-1))


def test_dynamic_shared_memory_carved_into_two_types() -> None:
    n = 40
    ints = np.zeros(n, np.int32)
    doubles = np.zeros(n)
    module("shared.cu").launch("carve_dynamic", 1, n, [ints, doubles], shared_bytes=n * 12)
    reverse = np.arange(n)[::-1]
    np.testing.assert_array_equal(ints, 3 * reverse)
    np.testing.assert_array_equal(doubles, 0.5 * reverse)


def test_static_shared_in_static_device_function_is_reread_after_barrier() -> None:
    data = np.arange(2 * 128, dtype=np.int32) * 3
    out = np.zeros_like(data)
    module("shared.cu").launch("rotate", 2, 128, [data, out], schedule="random", seed=5)
    np.testing.assert_array_equal(out, np.roll(data.reshape(2, 128), -1, axis=1).reshape(-1))


def test_syncwarp_orders_a_warp_exchange_through_shared_memory() -> None:
    out = np.zeros(64, np.int32)
    module("shared.cu").launch("warp_exchange", 1, 64, [out], schedule="random", seed=3)
    lanes = np.arange(64)
    np.testing.assert_array_equal(out, ((lanes // 32) * 32 + 31 - lanes % 32) * 10 + 7)


def test_three_dimensional_grid_and_blocks() -> None:
    grid, block = (3, 2, 4), (4, 3, 2)
    nx, ny, nz = (g * b for g, b in zip(grid, block, strict=True))
    out = np.full(nx * ny * nz * 3, -1, np.int32)
    module("grid3d.cu").launch("coordinates", grid, block, [out, nx, ny], schedule="random")
    z, y, x = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    np.testing.assert_array_equal(out.reshape(-1, 3), np.stack([x, y, z], -1).reshape(-1, 3))


def test_kernel_sees_grid_and_block_dims() -> None:
    dims = np.zeros((2, 3), np.uint32)
    ids = np.zeros((2 * 3 * 5, 3), np.uint32)
    module("grid3d.cu").launch("shape", (2, 3, 5), (8, 2, 1), [dims, ids])
    np.testing.assert_array_equal(dims, [[2, 3, 5], [8, 2, 1]])
    z, y, x = np.meshgrid(np.arange(5), np.arange(3), np.arange(2), indexing="ij")
    np.testing.assert_array_equal(ids, np.stack([x, y, z], -1).reshape(-1, 3))


def test_device_functions_through_templates_and_local_header() -> None:
    n = 300
    data = np.linspace(-2, 2, n, dtype=np.float32)
    squared, cubic = np.zeros(n, np.float32), np.zeros(n, np.int32)
    module("templates.cu").launch("transform", 3, 128, [data, squared, cubic, n])
    np.testing.assert_allclose(squared, data**4, rtol=1e-6)
    i = np.arange(n, dtype=np.int64)
    np.testing.assert_array_equal(cubic, (i + i**2 + i**3).astype(np.int32))
    out = np.zeros(8, np.int32)
    module("templates.cu").launch("fill_int", 1, 8, [out, 5])
    np.testing.assert_array_equal(out, 9)


def test_every_atomic_returns_the_old_value_and_updates() -> None:
    i = np.array([1, 10, 0, 3, 4, 0x3C, 0x03, 0x0F, 10, 12, 100], np.int32)
    u = np.array([3, 1, 0, 9, 4], np.uint32)
    ull = np.array([1 << 40, 5 << 32, 9], np.uint64)
    ll = np.array([-9, 4], np.int64)
    f = np.array([2.0, 7.0], np.float32)
    d = np.array([1.5])
    olds = np.full(24, -99, np.int32)
    module("atomics.cu").launch("atomic_ops", 1, 32, [i, u, ull, ll, f, d, olds])
    np.testing.assert_array_equal(i, [6, 7, 42, -7, 9, 0x0C, 0x33, 0xF0, 11, 12, 102])
    np.testing.assert_array_equal(u, [0, 2, 5, 5, 3])
    np.testing.assert_array_equal(ull, [(1 << 41) + 1, (5 << 32) + (1 << 33), 77])
    np.testing.assert_array_equal(ll, [-5, -5])
    np.testing.assert_array_equal(f, [3.5, 2.5])
    np.testing.assert_array_equal(d, [1.75])
    expected_olds = [1, 10, 0, 3, 4, 0x3C, 0x03, 0x0F, 10, 12,
                     3, 1, 0, 9, 4, 1, 5, -9, 4, 2, 7, 1, 100 + 101, 9]  # fmt: skip
    np.testing.assert_array_equal(olds, expected_olds)


def test_double_add_from_64_bit_atomic_cas() -> None:
    rng = np.random.default_rng(13)
    data = rng.integers(0, 1000, 3000).astype(np.float64)
    total = np.zeros(1)
    module("atomics.cu").launch(
        "sum_with_cas", 12, 256, [data, total, data.size], schedule="random", seed=2
    )
    assert total[0] == data.sum()


@pytest.mark.parametrize("schedule", ["inorder", "random"])
def test_intra_block_spin_lock_makes_progress_and_excludes(schedule: str) -> None:
    lock, counter, inside = (np.zeros(1, np.int32) for _ in range(3))
    module("atomics.cu").launch(
        "locked_counter", 2, 256, [lock, counter, inside], schedule=schedule, seed=4
    )
    assert counter[0] == 2 * 256 // 32
    assert inside[0] == 1
    assert lock[0] == 0


def test_bit_intrinsics() -> None:
    values = np.array([0, 1, 2, 3, 0x80000000, 0xFFFFFFFF, 0x12345678, 96, 1 << 20],
                      np.uint32)  # fmt: skip
    n = values.size
    pop, clz, ffs = (np.zeros(n, np.int32) for _ in range(3))
    brev, hi = np.zeros(n, np.uint32), np.zeros(n, np.uint32)
    module("intrinsics.cu").launch("bit_ops", 1, 32, [values, pop, clz, ffs, brev, hi, n])
    as_bits = [format(int(v), "032b") for v in values]
    np.testing.assert_array_equal(pop, [b.count("1") for b in as_bits])
    np.testing.assert_array_equal(clz, [len(b) - len(b.lstrip("0")) for b in as_bits])
    np.testing.assert_array_equal(
        ffs, [0 if v == 0 else (int(v) & -int(v)).bit_length() for v in values]
    )
    np.testing.assert_array_equal(brev, [int(b[::-1], 2) for b in as_bits])
    np.testing.assert_array_equal(hi, [(int(v) * 0x9E3779B9) >> 32 for v in values])


def test_math_functions_and_conversions() -> None:
    x = np.linspace(-3, 3, 61, dtype=np.float32)
    out = np.zeros(8 * x.size, np.float32)
    module("intrinsics.cu").launch("math_ops", 2, 32, [x, out, x.size])
    got = out.reshape(-1, 8)
    i = np.arange(x.size)
    expected = np.stack(
        [
            np.sin(x) + np.cos(x),
            np.exp(-x * x),
            1 / np.sqrt(np.abs(x) + 1),
            np.minimum(x, 0.5) + np.maximum(x, -0.5),
            np.clip(x, 0, 1),
            np.rint(x * np.float32(10)),
            x / 3 + np.exp(x) - np.log(np.abs(x) + 1),
            np.minimum(i, 3) + np.maximum(-i, -2) + i + np.sqrt(i),
        ],
        axis=1,
    )
    np.testing.assert_allclose(got, expected, rtol=2e-6, atol=2e-6)


def test_vector_types() -> None:
    data = np.linspace(-5, 5, 4 * 20, dtype=np.float32).reshape(20, 4)
    sums = np.zeros((20, 2), np.float32)
    parts = np.zeros((20, 2), np.int32)
    module("intrinsics.cu").launch("vectors", 1, 32, [data, sums, parts, 20])
    np.testing.assert_allclose(
        sums, np.stack([data[:, 0] + data[:, 1], data[:, 2] + data[:, 3]], 1)
    )
    np.testing.assert_array_equal(parts, np.stack([np.trunc(data[:, 0]), np.floor(data[:, 3])], 1))


def test_shuffle_width_segments_and_rotation() -> None:
    data = np.arange(64, dtype=np.int32) * 7
    broadcast, rotated = np.zeros(64, np.int32), np.zeros(64, np.int32)
    module("warp.cu").launch("segments", 1, 64, [data, broadcast, rotated])
    np.testing.assert_array_equal(broadcast, np.repeat(data.reshape(-1, 8)[:, 3], 8))
    np.testing.assert_array_equal(rotated, np.roll(data.reshape(2, 32), -1, axis=1).reshape(-1))


def test_match_any_and_match_all() -> None:
    keys = np.array([i % 3 for i in range(32)] + [1000 + 50 * i for i in range(32)], np.int32)
    peers = np.zeros(64, np.uint32)
    all_same = np.zeros(2, np.int32)
    module("warp.cu").launch("matching", 1, 64, [keys, peers, all_same])
    for lane in range(64):
        base = (lane // 32) * 32
        expected = sum(1 << j for j in range(32) if keys[base + j] == keys[lane])
        assert peers[lane] == expected
    # keys // 1000: all 0 in warp 0 (all 32 lanes agree), 1 or 2 in warp 1.
    np.testing.assert_array_equal(all_same, [32, -1])


def test_activemask_reports_the_lanes_of_a_divergent_branch() -> None:
    masks = np.zeros(64, np.uint32)
    firsts = np.zeros(64, np.int32)
    module("warp.cu").launch("active_lanes", 1, 64, [masks, firsts], schedule="random")
    taken = sum(1 << lane for lane in range(0, 32, 3))
    lanes = np.arange(64) % 32
    np.testing.assert_array_equal(masks, np.where(lanes % 3 == 0, taken, 0))
    np.testing.assert_array_equal(firsts, np.where(lanes % 3 == 0, 0, -1))


def test_half_warp_reductions_with_partial_masks() -> None:
    out = np.zeros(32, np.int32)
    module("warp.cu").launch("half_warps", 1, 32, [out])
    np.testing.assert_array_equal(out[:16], sum(range(16)))
    np.testing.assert_array_equal(out[16:], 31 - 31)
