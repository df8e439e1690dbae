"""A bounded, reproducible sample of the generated Indigo3 codes, as symlinks.

    python bench/indigo3_sample.py CODES OUT [--racy 2] [--free 2]
    python bench/indigo3_sample.py CODES OUT --total 590

CODES is Indigo3's generatedCodes/CUDA (one directory per algorithm). The codes
are linked into OUT/<algorithm dir>/ (OUT is emptied first), never copied: the
corpus stays outside the repository. `hirace check OUT --inputs ... -I
.../lib` then runs them (docs/indigo.md, docs/engines.md).

Two ways of choosing, both deterministic (the same corpus gives the same
sample on every machine):

- `--racy R --free F` (default): for every algorithm directory, from the
  sorted file names without a planted `LivelockBug`, R codes whose name
  carries a race tag and F whose name carries none
  (hirace_py.indigo.suite.labels_from_name), evenly spaced over the sorted
  list (the small samples of docs/engines.md).
- `--total N`: a stratified sample of N codes over the whole suite, every
  bug configuration included. N is split evenly over the algorithm
  directories (the remainder to the largest ones), so every algorithm and its
  kernel styles get the same weight whatever its size; within a directory,
  half the share goes to codes with a race tag and half to codes without
  (the acceptance is about both: planted races found, no false alarms). In
  each of these strata the codes are ordered by the SHA-256 of their file
  name (a fixed pseudo-random shuffle: the sorted names group by kernel
  style, then by bug tags, so evenly spacing over them would alias with the
  tag pattern) and the first ones of that order are taken. So every kernel
  style and every bug tag appears at about its frequency in the stratum (the
  script prints how many codes carry each tag, in the sample and in the
  suite), and a smaller sample is part of a larger one: the codes of
  `--total 210` are among those of `--total 590`.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hirace_py.indigo.suite import labels_from_name


def spaced(names: list[Path], k: int) -> list[Path]:
    """k names evenly spaced over `names` (all of them if there are fewer)."""
    if len(names) <= k:
        return names
    return [names[i * len(names) // k] for i in range(k)]


def shuffled(files: list[Path]) -> list[Path]:
    """`files` in the order of the SHA-256 of their names: a fixed shuffle."""
    return sorted(files, key=lambda p: hashlib.sha256(p.name.encode()).hexdigest())


def algorithms(codes: Path) -> list[tuple[str, list[Path]]]:
    """The algorithm directories with their sorted codes."""
    return [(d.name, sorted(d.glob("*.cu"))) for d in sorted(codes.iterdir()) if d.is_dir()]


def sample(codes: Path, racy: int, free: int) -> dict[str, list[Path]]:
    """Per algorithm: `racy` racy and `free` race-free codes, no LivelockBug."""
    out = {}
    for algo, all_files in algorithms(codes):
        files = [p for p in all_files if not labels_from_name(p.stem).hangs]
        racy_files = [p for p in files if labels_from_name(p.stem).racy]
        free_files = [p for p in files if not labels_from_name(p.stem).racy]
        out[algo] = [*spaced(racy_files, racy), *spaced(free_files, free)]
    return out


def shares(total: int, sizes: list[int]) -> list[int]:
    """`total` split evenly over len(sizes) parts, the remainder to the largest."""
    base, rest = divmod(total, len(sizes))
    largest = sorted(range(len(sizes)), key=lambda i: (-sizes[i], i))[:rest]
    return [base + (i in largest) for i in range(len(sizes))]


def stratified(codes: Path, total: int) -> dict[str, list[Path]]:
    """`total` codes: even per algorithm, half racy and half not within each."""
    algos = algorithms(codes)
    out = {}
    for (algo, files), n in zip(algos, shares(total, [len(f) for _, f in algos]), strict=True):
        racy_files = shuffled([p for p in files if labels_from_name(p.stem).racy])
        free_files = shuffled([p for p in files if not labels_from_name(p.stem).racy])
        n_racy = min(len(racy_files), n - n // 2)
        chosen = [*racy_files[:n_racy], *free_files[: n - n_racy]]
        out[algo] = sorted(chosen)
    return out


def tag_counts(files: list[Path]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for p in files:
        labels = labels_from_name(p.stem)
        counts.update(labels.bugs or ("(no bug)",))
    return counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("codes", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--racy", type=int, default=2, help="racy codes per algorithm")
    ap.add_argument("--free", type=int, default=2, help="race-free codes per algorithm")
    ap.add_argument("--total", type=int, help="a stratified sample of this many codes instead")
    args = ap.parse_args()
    if not args.codes.is_dir():
        print(f"{args.codes}: not a directory", file=sys.stderr)
        return 2
    if args.total is not None and args.total < 1:
        print(f"--total {args.total}: must be at least 1", file=sys.stderr)
        return 2
    chosen = (stratified(args.codes, args.total) if args.total is not None
              else sample(args.codes, args.racy, args.free))  # fmt: skip
    shutil.rmtree(args.out, ignore_errors=True)
    for algo, files in chosen.items():
        (args.out / algo).mkdir(parents=True)
        for f in files:
            (args.out / algo / f.name).symlink_to(f.resolve())
    picked = [f for files in chosen.values() for f in files]
    suite = [f for _, files in algorithms(args.codes) for f in files]
    print(f"{len(picked)} codes linked under {args.out}")
    for algo, files in chosen.items():
        racy = sum(labels_from_name(p.stem).racy for p in files)
        print(f"  {algo}: {len(files)} ({racy} with a race tag)")
    if args.total is not None:
        in_sample, in_suite = tag_counts(picked), tag_counts(suite)
        print("codes carrying each tag, sample / suite:")
        for tag in sorted(in_suite, key=lambda t: -in_suite[t]):
            print(f"  {tag:<18}{in_sample[tag]:>5} / {in_suite[tag]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
