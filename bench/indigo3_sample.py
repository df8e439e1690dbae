"""A bounded, reproducible sample of the generated Indigo3 codes, as symlinks.

    python bench/indigo3_sample.py CODES OUT [--racy 2] [--free 2]

CODES is Indigo3's generatedCodes/CUDA (one directory per algorithm). For
every algorithm directory it takes, from the sorted file names without a
planted `LivelockBug` (such codes never finish), `--racy` codes whose name
carries a race tag and `--free` codes whose name carries none
(hirace_py.indigo.suite.labels_from_name), each evenly spaced over its sorted
list, and links them into OUT/<algorithm dir>/ (OUT is emptied first). The
codes are linked, never copied: the corpus stays outside the repository.
`hirace check OUT --inputs ... -I .../lib` then runs them (docs/engines.md).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hirace_py.indigo.suite import labels_from_name


def spaced(names: list[str], k: int) -> list[str]:
    """k names evenly spaced over `names` (all of them if there are fewer)."""
    if len(names) <= k:
        return names
    return [names[i * len(names) // k] for i in range(k)]


def sample(codes: Path, racy: int, free: int) -> dict[str, list[Path]]:
    """The chosen codes by algorithm directory name."""
    out = {}
    for algo in sorted(p for p in codes.iterdir() if p.is_dir()):
        files = sorted(p for p in algo.glob("*.cu") if not labels_from_name(p.stem).hangs)
        racy_files = [p for p in files if labels_from_name(p.stem).racy]
        free_files = [p for p in files if not labels_from_name(p.stem).racy]
        out[algo.name] = [*spaced(racy_files, racy), *spaced(free_files, free)]  # type: ignore[arg-type]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("codes", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--racy", type=int, default=2, help="racy codes per algorithm")
    ap.add_argument("--free", type=int, default=2, help="race-free codes per algorithm")
    args = ap.parse_args()
    if not args.codes.is_dir():
        print(f"{args.codes}: not a directory", file=sys.stderr)
        return 2
    shutil.rmtree(args.out, ignore_errors=True)
    n = 0
    for algo, files in sample(args.codes, args.racy, args.free).items():
        (args.out / algo).mkdir(parents=True)
        for f in files:
            (args.out / algo / f.name).symlink_to(f.resolve())
            n += 1
    print(f"{n} codes linked under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
