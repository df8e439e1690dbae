"""`hirace fsm`: print the transition table, or step through a trace with it."""

from __future__ import annotations

import argparse
import re
import sys

import numpy as np

from hirace_py import fsm, fsm_export, oracle
from hirace_py.errors import ExitCode, HiraceError
from hirace_py.replay import relation_table, warp_ticks
from hirace_py.trace import (
    BSYNC,
    FENCE,
    FENCE_BLOCK,
    GSYNC,
    WSYNC,
    Grid,
    Trace,
    TraceSyntaxError,
    action_of,
    parse,
)

EPILOG = """\
trace syntax: events separated by ';' or newlines
  R|W|BA|GA|BL|GL B.W.L [@LOC]  thread (block B, warp W, lane L) accesses LOC (default @0);
                           BA/GA atomic, BL/GL atomic load, of block/device scope
  BA|GA.acq|.rel|.ar ...   an atomic with acquire, release or both orders (a load: .acq)
  fence B.W.L              __threadfence() by that thread (fence.b: _block)
  bsync B                  block B passes __syncthreads
  wsync B.W [MASK]         lanes MASK (default all) of warp W of block B: __syncwarp
  gsync                    the grid passes this_grid().sync()
the oracle models all of them (docs/semantics.md section 1); the table models
neither fences nor memory orders nor warp barriers over other lanes than a
lane group (the warp, or --group LANES aligned lanes as the runtime has them
for a file that syncs only tiles of that width), and says so per event
example: hirace fsm --trace "W 0.0.0; bsync 0; R 0.1.0"
example: hirace fsm --grid 1x1x4 --group 2 --trace "W 0.0.0; wsync 0.0 0x3; R 0.0.1"
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "fsm",
        help="print the FSM transition table or run a trace through it",
        description="Print the race-detection FSM, or step through an event trace.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--format", choices=["text", "csv", "json", "dot"], default="text")
    p.add_argument("--state", help="show only this state (text format)")
    p.add_argument("--race-edges", action="store_true", help="dot: also draw the edges into RACE")
    p.add_argument("--trace", help="run this trace (see below) and print each step")
    p.add_argument("--grid", help="grid for --trace as BLOCKSxWARPSxLANES (default: smallest)")
    p.add_argument("--group", type=int, metavar="LANES",
                   help="lanes of the runtime's lane groups for --trace, a power of two "
                        "(default: the whole warp; docs/semantics.md 1.3)")  # fmt: skip
    p.set_defaults(func=run)


def _grid(text: str | None) -> Grid | None:
    if text is None:
        return None
    m = re.fullmatch(r"(\d+)x(\d+)x(\d+)", text)
    if not m:
        raise HiraceError(f"--grid {text!r}: expected BLOCKSxWARPSxLANES, e.g. 2x2x2")
    try:
        return Grid(int(m[1]), int(m[2]), int(m[3]))
    except ValueError as exc:
        raise HiraceError(f"--grid {text!r}: {exc}") from None


def explain(trace: Trace, group: int | None = None) -> str:
    """One line per event: the event, rel/sync for accesses, the state, both
    verdicts; the table's warp level is lane groups of `group` lanes."""
    verdict = oracle.check(trace)
    rel_of = relation_table(trace.grid, group)
    block = trace.grid.block_of()
    gc = 0
    bc = [0] * trace.grid.threads
    wc = [0] * trace.grid.threads
    shadow: dict[int, tuple[int, int, int, int, int]] = {}
    lines = [f"grid {trace.grid} (blocks x warps x lanes)"]
    lines.append(f"{'#':>3}  {'event':<18} {'rel':<4}{'sync':<5}{'state':<10}{'fsm':<8}oracle")
    for i in range(len(trace)):
        op, who, loc = int(trace.ops[i]), int(trace.who[i]), int(trace.locs[i])
        if op == BSYNC:
            for t in range(trace.grid.threads):
                bc[t] += block[t] == who
            lines.append(f"{i:>3}  {trace.format_event(i):<18}")
            continue
        if op >= BSYNC:
            # The table's clocks: a warp barrier over other lanes than a lane
            # group and a fence move none (docs/fsm.md, "What the table does
            # not model").
            ticks = np.zeros(trace.grid.threads, bool)
            if op == WSYNC:
                ticks = warp_ticks(trace.grid, np.array([who]), np.array([loc]), group)[0]
                for t in np.flatnonzero(ticks):
                    wc[t] += 1
            gc += op == GSYNC
            note = "(not modelled by the table)" if op in (FENCE, FENCE_BLOCK) or (
                op == WSYNC and not ticks.any()) else ""  # fmt: skip
            lines.append(f"{i:>3}  {trace.format_event(i):<18} {note}".rstrip())
            continue
        state, last, lgc, lbc, lwc = shadow.get(loc, (fsm.INIT, 0, 0, 0, 0))
        sync = (fsm.Sync.G if gc > lgc else fsm.Sync.B if bc[who] > lbc
                else fsm.Sync.W if wc[who] > lwc else fsm.Sync.U)  # fmt: skip
        rel = fsm.Rel(int(rel_of[who, last]))
        new = fsm.step(state, int(action_of(op)), sync, rel)
        shadow[loc] = (new, who, gc, bc[who], wc[who])
        fsm_says = "race" if new == fsm.RACE else "-"
        name = trace.locations[loc]
        race = verdict.races.get(name)
        if race is not None and race.second == i:
            oracle_says = f"race with #{race.first}"
        elif verdict.racy_after(i, loc):
            oracle_says = "race"
        else:
            oracle_says = "-"
        lines.append(
            f"{i:>3}  {trace.format_event(i):<18} {rel.name:<4}{sync.name:<5}"
            f"{fsm.STATES[new]:<10}{fsm_says:<8}{oracle_says}"
        )
    racy = sorted(verdict.races)
    lines.append(
        "verdict: " + (f"race on {', '.join('@' + n for n in racy)}" if racy else "no race")
    )
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    if args.trace is not None:
        try:
            trace = parse(args.trace, _grid(args.grid))
        except TraceSyntaxError as exc:
            raise HiraceError(f"--trace: {exc}") from None
        group = args.group
        if group is not None and (group < 1 or group & (group - 1) or group > trace.grid.lanes):
            raise HiraceError(f"--group {group}: expected a power of two from 1 to the "
                              f"grid's {trace.grid.lanes} lanes")  # fmt: skip
        sys.stdout.write(explain(trace, group))
        return ExitCode.CLEAN
    state = None
    if args.state is not None:
        try:
            state = fsm.state_index(args.state)
        except ValueError as exc:
            raise HiraceError(str(exc)) from None
        if args.format != "text":
            raise HiraceError("--state works with --format text only")
    render = {
        "text": lambda: fsm_export.to_text(state),
        "csv": fsm_export.to_csv,
        "json": fsm_export.to_json,
        "dot": lambda: fsm_export.to_dot(args.race_edges),
    }[args.format]
    sys.stdout.write(render())
    return ExitCode.CLEAN
