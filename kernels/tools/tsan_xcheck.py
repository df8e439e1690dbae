"""Cross-check the litmus manifest with ThreadSanitizer (not part of hirace).

Each case's kernel is compiled with g++ against tsan_shim.h: every CUDA thread
becomes an OS thread and barriers create exactly the happens-before edges of
docs/semantics.md section 1. The racing line pairs TSan reports, plus the atomic-atomic
scope conflicts found from the shim's atomic log, are compared with the
manifest's `races`. A second build with AddressSanitizer checks that no case
reads or writes outside its global arrays.

Known limits: TSan reports at most one race per memory access and keeps a
bounded history per 8 bytes, so it can miss a pair (it never invents one under
this shim); such a difference must be checked by hand. Cases whose grid has
more than 4096 threads are skipped (one OS thread per CUDA thread); run scaled
copies of them instead. Needs g++ with libtsan and libasan, Linux only.

    python kernels/tools/tsan_xcheck.py [--no-asan] [CASE ...]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from itertools import combinations_with_replacement
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
KERNELS = HERE.parent
CTYPES = {
    "int8": "int8_t",
    "int16": "int16_t",
    "int32": "int32_t",
    "int64": "int64_t",
    "uint8": "uint8_t",
    "uint16": "uint16_t",
    "uint32": "uint32_t",
    "uint64": "uint64_t",
    "float32": "float",
    "float64": "double",
}
DECL = re.compile(r"^(\s*)(extern\s+)?__shared__\s+([\w\s\*]+?)\s+(\w+)\s*((?:\[\w*\])*)\s*;(.*)$")
ACCESS = re.compile(
    r"^\s+(Previous )?(atomic |Atomic )?(read|write|Read|Write) of size \d+ at (0x[0-9a-f]+)"
)
MAX_THREADS = 4096
SLOT = 16384  # bytes of arena per static __shared__ declaration

Race = tuple[int, int, str, str]


def rewrite_shared(source: str) -> tuple[str, int]:
    """Turns `__shared__` declarations into references into the block's arena,
    keeping every line where it was. Returns the source and the static count."""
    lines = source.splitlines()
    nstatic = sum(1 for ln in lines if (m := DECL.match(ln)) and not m.group(2))
    out: list[str] = []
    index = 0
    for ln in lines:
        m = DECL.match(ln)
        if not m:
            out.append(ln)
            continue
        ind, ext, ty, name, dims, rest = m.groups()
        if ext:
            base = f"__blk->smem + {nstatic} * {SLOT}"
            out.append(f"{ind}{ty} *{name} = reinterpret_cast<{ty} *>({base});{rest}")
            continue
        base = f"__blk->smem + {index} * {SLOT}"
        index += 1
        if dims:
            cast = f"*reinterpret_cast<{ty}(*){dims}>({base})"
            out.append(f"{ind}{ty} (&{name}){dims} = {cast};{rest}")
        else:
            out.append(f"{ind}{ty} &{name} = *reinterpret_cast<{ty} *>({base});{rest}")
    return "\n".join(out), nstatic


def dims3(value: int | list[int]) -> list[int]:
    items = [value] if isinstance(value, int) else list(value)
    return items + [1] * (3 - len(items))


def driver(case: dict[str, Any], source: str, nstatic: int) -> str:
    """A main() that allocates the case's arrays and launches its kernel."""
    m = re.search(r"__global__\s+void\s+" + re.escape(case["kernel"]) + r"\s*\(([^)]*)\)", source)
    if m is None:
        raise SystemExit(f"{case['name']}: kernel {case['kernel']} not found")
    body: list[str] = []
    call: list[str] = []
    for param in (p.strip() for p in m.group(1).split(",")):
        if not param:
            continue
        name = re.findall(r"\w+", param)[-1]
        ctype = param[: param.rfind(name)].strip()
        arg = case["args"][name]
        if not isinstance(arg, dict):
            call.append(f"({ctype})({arg})")
            continue
        ct, n = CTYPES[arg["dtype"]], arg["length"]
        var = f"A_{name}"
        body.append(f"  {ct} *{var} = ({ct} *)calloc({n}, sizeof({ct}));")
        init = arg.get("init", "zeros")
        loop = f"  for (long k = 0; k < {n}; ++k) {var}[k] ="
        if init == "arange":
            body.append(f"{loop} ({ct})k;")
        elif init == "ones":
            body.append(f"{loop} 1;")
        elif init == "random":
            lo, hi = arg.get("low", 0), arg.get("high", 100)
            body.append(f"  unsigned long s_{name} = {arg.get('seed', 0)}UL + 12345UL;")
            body.append(
                f"{loop} (s_{name} = s_{name} * 6364136223846793005UL + 1UL,"
                f" ({ct})({lo} + (long)((s_{name} >> 33) % ({hi} - {lo}))));"
            )
        elif "fill" in arg:
            body.append(f"{loop} ({ct}){arg['fill']};")
        call.append(f"({ctype}){var}")
    g, b = dims3(case["grid"]), dims3(case["block"])
    body.append(
        f"  __launch(dim3{{{g[0]}u, {g[1]}u, {g[2]}u}}, dim3{{{b[0]}u, {b[1]}u, {b[2]}u}}, "
        f"{case.get('shared_bytes', 0)}, {nstatic}, "
        f"[&] {{ {case['kernel']}({', '.join(call)}); }});"
    )
    return "int main() {\n" + "\n".join(body) + "\n  return 0;\n}\n"


def build(case: dict[str, Any], sanitizer: str, workdir: Path) -> Path:
    path = KERNELS / case["file"]
    source = path.read_text()
    rewritten, nstatic = rewrite_shared(source)
    text = (
        f'#include "{HERE / "tsan_shim.h"}"\n#line 1 "{path}"\n{rewritten}\n'
        f'#line 1 "driver.cc"\n{driver(case, source, nstatic)}'
    )
    cc = workdir / f"{case['name']}.{sanitizer}.cc"
    exe = workdir / f"{case['name']}.{sanitizer}"
    cc.write_text(text)
    flags = {
        "tsan": ["-fsanitize=thread", "-DUSE_TSAN", "-O1"],
        "asan": ["-fsanitize=address,undefined", "-O1"],
    }[sanitizer]
    cmd = ["g++", "-std=c++17", "-g", "-w", "-pthread", *flags, str(cc), "-o", str(exe)]
    result = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if result.returncode:
        raise SystemExit(f"{case['name']}: compile failed\n{result.stderr[:3000]}")
    return exe


def parse_report(output: str, file: Path) -> set[Race]:
    """Racing line pairs in a TSan log plus the scope conflicts of the atomic log."""
    lo = hi = 0
    m = re.search(r"SMEM (0x[0-9a-f]+) (0x[0-9a-f]+)", output)
    if m:
        lo, hi = int(m.group(1), 16), int(m.group(2), 16)

    def space(addr: int) -> str:
        return "shared" if lo <= addr < hi else "global"

    races: set[Race] = set()
    for report in output.split("WARNING: ThreadSanitizer: data race")[1:]:
        accesses: list[dict[str, Any]] = []
        for ln in report.splitlines():
            a = ACCESS.match(ln)
            if a:
                accesses.append(
                    {
                        "atomic": bool(a.group(2)),
                        "write": a.group(3).lower() == "write",
                        "addr": int(a.group(4), 16),
                        "line": None,
                    }
                )
                continue
            f = re.match(r"\s+#\d+ .*?(\S+?):(\d+)", ln)
            if f and accesses and accesses[-1]["line"] is None and f.group(1) == str(file):
                accesses[-1]["line"] = int(f.group(2))
            if ln.startswith("SUMMARY"):
                break
        if len(accesses) < 2 or accesses[0]["line"] is None or accesses[1]["line"] is None:
            continue  # TSan could not restore a stack; the pair shows up in other reports
        x, y = accesses[0], accesses[1]
        if x["atomic"] or y["atomic"]:
            kind = "atomic-plain"
        elif x["write"] and y["write"]:
            kind = "write-write"
        else:
            kind = "read-write"
        la, lb = sorted((x["line"], y["line"]))
        races.add((la, lb, kind, space(x["addr"])))
    log: dict[int, set[tuple[int, int, int]]] = {}
    for m in re.finditer(r"^ATOM ([0-9a-f]+) (\d) (\d+) (\d+)$", output, re.M):
        entry = (int(m.group(4)), int(m.group(2)), int(m.group(3)))
        log.setdefault(int(m.group(1), 16), set()).add(entry)
    for addr, entries in log.items():
        for (b1, s1, l1), (b2, s2, l2) in combinations_with_replacement(sorted(entries), 2):
            if b1 != b2 and not (s1 == 2 and s2 == 2):
                la, lb = sorted((l1, l2))
                races.add((la, lb, "atomic-plain", space(addr)))
    return races


def threads(case: dict[str, Any]) -> int:
    total = 1
    for d in dims3(case["grid"]) + dims3(case["block"]):
        total *= d
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help="case names (default: all that fit)")
    parser.add_argument("--no-asan", action="store_true", help="skip the bounds check")
    parser.add_argument("--runs", type=int, default=1, help="TSan runs per case (union)")
    opts = parser.parse_args(argv)
    manifest = tomllib.loads((KERNELS / "manifest.toml").read_text())["case"]
    env = {
        **os.environ,
        "TSAN_OPTIONS": "suppress_equal_addresses=0 history_size=7 exitcode=0",
        "ASAN_OPTIONS": "detect_leaks=0",
    }
    mismatches = 0
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for case in manifest:
            if opts.cases and case["name"] not in opts.cases:
                continue
            if threads(case) > MAX_THREADS:
                print(f"skip {case['name']} ({threads(case)} threads)")
                continue
            expected = {(*sorted(r["lines"]), r["kind"], r["space"]) for r in case.get("races", [])}
            if not opts.no_asan:
                exe = build(case, "asan", workdir)
                run = subprocess.run([str(exe)], capture_output=True, text=True, env=env)
                if run.returncode or "runtime error" in run.stderr:
                    mismatches += 1
                    print(f"ASAN {case['name']}\n{run.stderr[-3000:]}")
            exe = build(case, "tsan", workdir)
            found: set[Race] = set()
            for _ in range(opts.runs):
                run = subprocess.run([str(exe)], capture_output=True, text=True, env=env)
                found |= parse_report(run.stdout + run.stderr, KERNELS / case["file"])
            same = found == expected
            mismatches += not same
            print(f"{'ok  ' if same else 'DIFF'} {case['name']}", flush=True)
            if not same:
                print(f"     manifest only: {sorted(expected - found)}")
                print(f"     tsan only:     {sorted(found - expected)}")
    print(f"{mismatches} mismatch(es)")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
