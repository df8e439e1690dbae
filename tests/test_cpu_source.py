"""CPU backend source translation: kernels, variables, shared memory rewrites,
#if handling, and line numbers that survive the insertions."""

from __future__ import annotations

import re

import pytest

from hirace_py.backends.cpu_errors import CompileError
from hirace_py.backends.cpu_runtime import ModuleRenderer, predefined_macros
from hirace_py.backends.cpu_source import Param, TranslationUnit, translate


def unit(source: str, **macros: str) -> TranslationUnit:
    return translate(source, "k.cu", predefined_macros() | macros, ModuleRenderer())


def presumed_lines(text: str) -> dict[int, tuple[str, int]]:
    """For each physical line of translated text, its (file, line) per #line."""
    result: dict[int, tuple[str, int]] = {}
    file, line = "?", 1
    for physical, content in enumerate(text.splitlines(), 1):
        marker = re.match(r'#line (\d+) "(.*)"', content)
        if marker:
            line, file = int(marker.group(1)), marker.group(2)
            continue
        result[physical] = (file, line)
        line += 1
    return result


def test_kernel_names_and_parameters() -> None:
    u = unit(
        """
template <int N> __device__ int helper(int x) { return x * N; }
__global__ void __launch_bounds__(256, 2) first(const float* __restrict__ in,
                                                float* out, int n, unsigned) { }
namespace outer { namespace inner {
__global__ void second(int data[], double scale = 2.0) { }
} }
extern "C" __global__ void third(void) { }
template <typename T> __global__ void generic(T* p) { }
"""
    )
    names = [(k.name, k.qualified, k.is_template, k.index) for k in u.kernels]
    assert names == [
        ("first", "first", False, 0),
        ("second", "outer::inner::second", False, 1),
        ("third", "third", False, 2),
        ("generic", "generic", True, -1),
    ]
    assert u.kernels[0].params == [
        Param("in", "const float* __restrict__"),
        Param("out", "float*"),
        Param("n", "int"),
        Param("arg3", "unsigned"),
    ]
    assert u.kernels[1].params == [Param("data", "int[]"), Param("scale", "double")]
    assert u.kernels[2].params == []
    assert u.kernels[0].line == 3


def test_comments_strings_and_if0_hide_kernels() -> None:
    u = unit(
        """
// __global__ void in_comment(int* a) { }
/* __global__ void in_block_comment(int* a) { } */
const char* s = "__global__ void in_string(int* a) { }";
#if 0
__global__ void disabled(int* a) { not C++ at all {
#endif
#if defined(FEATURE) && FEATURE > 2
__global__ void feature(int* a) { }
#else
__global__ void fallback(int* a) { }
#endif
__global__ void real(int* a) { }
""",
        FEATURE="3",
    )
    assert [k.name for k in u.kernels] == ["feature", "real"]


def test_undecidable_branches_are_scanned() -> None:
    u = unit("#ifdef SOMETHING_FROM_A_HEADER\n__global__ void maybe(int* a) { }\n#endif\n")
    assert [k.name for k in u.kernels] == ["maybe"]
    assert "hr_kernel_0" in u.text.split("#endif")[0]


def test_device_variables() -> None:
    u = unit(
        """
__device__ int counter;
__constant__ float table[4] = {1, 2, 3, 4};
__device__ __align__(16) double a, *b;
__device__ int function_prototype(int x);
extern __device__ int declared_elsewhere;
__device__ int computed = compute(3);
namespace ns { __managed__ unsigned flag = 0; }
__device__ __shared__ int file_scope_shared;
struct S { __device__ int member() { return 0; } };
"""
    )
    assert [(g.name, g.qualified) for g in u.globals] == [
        ("counter", "counter"),
        ("table", "table"),
        ("a", "a"),
        ("b", "b"),
        ("computed", "computed"),
        ("flag", "ns::flag"),
    ]


def test_extern_shared_is_rewritten_on_its_own_lines() -> None:
    source = """__global__ void k(float* out) {
    extern __shared__ __align__(16) float buffer[];
    extern volatile __shared__ int rows[][33];
    extern __shared__ unsigned char
        split[];
    static __shared__ int fixed[8];
    out[0] = buffer[0] + rows[0][1] + split[0] + fixed[0];
}
"""
    u = unit(source)
    lines = u.text.splitlines()
    body = lines[1 : 1 + len(source.splitlines())]
    assert body[1].strip() == (
        "static ::hr::dyn_shared_ptr<float> const& buffer = ::hr::dyn_shared_as<float>();"
    )
    assert "dyn_shared_ptr<volatile int[33]> const& rows" in body[2]
    assert "dyn_shared_ptr<unsigned char> const& split" in body[3]
    assert body[4].strip() == ""
    assert body[5].strip() == (
        "__shared__ int fixed[8]; static ::hr::SharedRegion hr_shared_195_0"
        "(__builtin_addressof(fixed), sizeof(fixed));"
    )
    assert body[6] == source.splitlines()[6]


def test_unsupported_extern_shared_is_a_compile_error_with_line() -> None:
    with pytest.raises(CompileError, match=r"k.cu:3: .*extern __shared__ T name\[\]") as info:
        unit("__global__ void k() {\n\n  extern __shared__ int a[], b[];\n}\n")
    assert info.value.line == 3


def test_insertions_keep_user_line_numbers() -> None:
    # (source line, a piece of it to find in the translation), 1-based order.
    lines = [
        ("__device__ int g;", "int g;"),
        ("__global__ void a(int* p) { p[0] = 1; } int after_a;", "int after_a;"),
        ("__global__ void b(int* p) {", "void b("),
        ("  p[0] = 2;", "p[0] = 2;"),
        ("}", None),
        ("__device__ float h = 1.0f; int after_h;", "int after_h;"),
        ("int last;", "int last;"),
    ]
    u = unit("\n".join(text for text, _ in lines))
    mapping = presumed_lines(u.text)
    translated = u.text.splitlines()
    for number, (_, probe) in enumerate(lines, 1):
        if probe is None:
            continue
        (physical,) = [i for i, t in enumerate(translated, 1) if probe in t]
        assert mapping[physical] == ("k.cu", number), probe
    assert u.text.count("hr_kernel_0(") == 1 and u.text.count("hr_kernel_1(") == 1
    assert u.text.count("hr_global_0(") == 1 and u.text.count("hr_global_1(") == 1


def test_includes_are_listed() -> None:
    u = unit('#include <cuda_runtime.h>\n#include "local.cuh"\n#if 0\n#include "no.h"\n#endif\n')
    assert u.includes == [("cuda_runtime.h", True), ("local.cuh", False)]


def test_filenames_are_quoted_in_line_markers() -> None:
    u = translate("__global__ void k() { }\n", 'dir "x"\\k.cu', {}, ModuleRenderer())
    assert u.text.startswith('#line 1 "dir \\"x\\"\\\\k.cu"')


@pytest.mark.parametrize(
    ("declaration", "names"),
    [
        ("__shared__ float s[64];", ["s"]),
        ("__shared__ int a[4], b;", ["a", "b"]),
        ("__shared__ __align__(16) volatile unsigned int x;", ["x"]),
        ("__shared__ cg::block_tile_memory<4, 256> scratch;", ["scratch"]),
        ("__shared__ typename T::Storage st, more[2][N < 4 ? 4 : N];", ["st", "more"]),
    ],
)
def test_each_shared_variable_registers_its_storage(declaration: str, names: list[str]) -> None:
    """Every variable of a `__shared__` declaration registers its storage after
    it, on its line (a cooperative launch keeps one copy per block)."""
    u = unit(f"__global__ void k() {{ {declaration} }}\n")
    line = u.text.splitlines()[1]
    registered = re.findall(r"hr::SharedRegion \w+\(__builtin_addressof\((\w+)\), "
                            r"sizeof\((\w+)\)\);", line)
    assert registered == [(n, n) for n in names]


def test_template_heads_do_not_make_a_function_a_class() -> None:
    # `class T` in a template head once made the scanner take the function for
    # a class body, and every kernel after it was lost (the module had none).
    u = unit(
        """
template <class T> __device__ T twice(T v) { return v + v; }
template <typename T, class U = T, int N = (1 << 2)> __device__ T thrice(T v) { return v * 3; }
template <template <class> class Box> __device__ int wrapped() { return 0; }
__global__ void first(float* a) { a[0] = twice(a[0]); }
template <class T> struct Pair { T a, b; };
__global__ void second(Pair<int>* p) { }
"""
    )
    assert [k.name for k in u.kernels] == ["first", "second"]
