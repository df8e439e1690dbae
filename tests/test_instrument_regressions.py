"""Rewriter and checker bugs found while building the corpus, kept fixed.

Each case is a race that was missed, or misnamed, before its fix.
"""

from __future__ import annotations

import numpy as np

import hirace_py

LAMBDAS = """\
__global__ void ref_lambda(int* a) {
    auto at = [&](int i) -> int& { return a[i]; };
    at(0) = threadIdx.x;
}
__global__ void init_capture(int* a) {
    a[threadIdx.x] = 1;
    auto f = [v = a[(threadIdx.x + 1) % 32]]() { return v; };
    a[threadIdx.x + 32] = f();
}
__global__ void value_lambda(int* a) {
    auto get = [&](int i) { return a[i]; };
    a[32 + threadIdx.x] = get(threadIdx.x);
}
struct Vec { int* data; __device__ int& operator[](int i) { return data[i]; } };
__global__ void ref_operator(int* a) {
    Vec v{a};
    v[0] = threadIdx.x;
}
"""


def races(src: str, kernel: str, threads: int = 32) -> set[tuple[tuple[int, int], str]]:
    a = np.zeros(64, np.int32)
    report = hirace_py.check(src, kernel, 1, threads, [a], backend="cpu", filename="k.cu")
    return {(r.lines(), r.kind) for r in report.races}


def test_write_through_a_lambda_returning_a_reference_is_tracked() -> None:
    assert races(LAMBDAS, "ref_lambda") == {((3, 3), "write-write")}


def test_init_capture_reads_memory() -> None:
    assert races(LAMBDAS, "init_capture") == {((6, 7), "read-write")}


def test_lambda_returning_a_value_reads_once_without_false_alarm() -> None:
    assert races(LAMBDAS, "value_lambda") == set()


def test_user_operator_returning_a_reference_is_tracked_at_the_use() -> None:
    assert races(LAMBDAS, "ref_operator") == {((17, 17), "write-write")}


def test_write_through_conditional_lvalue_is_a_write() -> None:
    src = "__global__ void k(int* a) {\n  (threadIdx.x & 1 ? a[0] : a[1]) = threadIdx.x;\n}\n"
    assert races(src, "k") == {((2, 2), "write-write")}


def test_shared_race_names_the_launched_kernels_variable() -> None:
    src = """\
__global__ void first(int* out) {
    __shared__ int alpha[64];
    alpha[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = alpha[63 - threadIdx.x];
}
__global__ void second(int* out) {
    __shared__ int beta[64];
    beta[threadIdx.x] = threadIdx.x;
    out[threadIdx.x] = beta[63 - threadIdx.x];
}
"""
    out = np.zeros(64, np.int32)
    [race] = hirace_py.check(src, "second", 1, 64, [out], backend="cpu").races
    assert (race.variable, race.space, race.lines()) == ("beta", "shared", (9, 10))
