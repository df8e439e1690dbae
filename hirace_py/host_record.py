"""The binary host record: its layout, rendered into the host runtime, and its reader.

A whole program built by hirace appends its host record (docs/host-events.md)
to a file next to its dump, `DUMP.host`, as the calls happen: each chunk goes
into a shared memory mapping of the file, so what was recorded is in the file
even when the program is killed before its dump is written. The dump names
the file (`"host": {"record": "NAME", ...}`); `inline(doc, dump_path)` reads
it into the dump's JSON shapes (`host.sites`, `host.events`,
`host_accesses`), so readers see one format whatever way it was written.

The file is the 8 bytes MAGIC, then chunks: a header of two little-endian
u32 (tag, payload words) and the payload, in 64-bit words:

| tag | payload |
| --- | --- |
| STRING | the bytes of a string, NUL-padded; strings are numbered 0, 1, ... in file order |
| SITE | file (string), line, column, function (string, -1: none), discarded; numbered likewise |
| EVENT | one call: a mask (bit k: word k of EVENT_FIELDS is present), the present words |
| ARGS | the pointer arguments of the launch event before it: (ptr, alloc, offset, readonly) each |
| STATUS | (event number, status): a status the call learned after its event was appended |
| ACCESS | a run of host accesses, ACCESS_FIELDS (hirace_py.hostdev.load) |

An event's number is its position among events; the words its chunk leaves
out have their defaults. A chunk header of zeros (a tag of 0) ends the
record: the file of a killed program is zero-filled past its last chunk.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

from hirace_py.host_events import ALLOC_KINDS, OPS

MAGIC = b"HIRACE-H"
TAGS: tuple[str, ...] = ("end", "string", "site", "event", "args", "status", "access")
"""Chunk tags by code (rendered into the runtime as kTag_NAME)."""

EVENT_FIELDS: tuple[tuple[str, str, int], ...] = (
    ("op", "Q", 0), ("thread", "Q", 0), ("site", "q", -1), ("status", "q", 0), ("t", "Q", 0),
    ("ns", "Q", 0), ("value", "q", 0), ("ptr0", "Q", 0), ("alloc0", "q", -1),
    ("offset0", "Q", 0), ("bytes", "Q", 0), ("flags", "Q", 0), ("stream", "Q", 0),
    ("hash", "Q", 0), ("ptr1", "Q", 0), ("alloc1", "q", -1), ("offset1", "Q", 0),
    ("handle", "Q", 0), ("extra", "q", 0), ("name", "q", -1), ("pitch0", "Q", 0),
    ("pitch1", "Q", 0), ("width", "Q", 0), ("height", "Q", 0), ("launch", "q", -1),
    ("grid0", "Q", 0), ("grid1", "Q", 0), ("grid2", "Q", 0), ("block0", "Q", 0),
    ("block1", "Q", 0), ("block2", "Q", 0), ("args", "Q", 0),
)  # fmt: skip
"""An event's words: name, struct code (q signed, Q unsigned) and the value a
word has when its chunk leaves it out: the runtime's Event
(templates/hirace_host.h.j2) with strings as string numbers. A chunk holds
only the words that differ from their defaults, after a mask naming them (a
1D copy keeps about 11 of the 32 words, a launch about 15)."""
EVENT_FLAGS = ("async", "has_stream", "hashed", "hash_unused", "opaque")
"""The bits of an event's `flags`, from bit 0."""
ACCESS_FIELDS: tuple[tuple[str, str], ...] = (
    ("after", "Q"), ("thread", "Q"), ("lo", "Q"), ("hi", "Q"), ("mode", "Q"), ("file", "q"),
    ("line", "Q"), ("column", "Q"), ("function", "q"), ("pointer", "q"),
)  # fmt: skip
"""An access chunk's words (hirace_host_access.h.j2's AccessRun)."""
UNKNOWN_THREAD = 0xFFFFFFFF
"""A join's `handle` when the joined thread is not known."""

_EVENT_DEFAULTS = tuple(default for _, _, default in EVENT_FIELDS)
_ACCESS = struct.Struct("<" + "".join(code for _, code in ACCESS_FIELDS))
_HEADER = struct.Struct("<II")
_TAG = {name: code for code, name in enumerate(TAGS)}


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.strings: list[str] = []
        self.sites: list[list[Any]] = []
        self.events: list[dict[str, Any]] = []
        self.accesses: list[list[Any]] = []
        # Event chunk layouts met so far, by mask: the struct of the present
        # words and their fields' indices (a program has few distinct ones).
        self.layouts: dict[int, tuple[struct.Struct, tuple[int, ...]]] = {}

    def string(self, index: int) -> str:
        return self.strings[index] if 0 <= index < len(self.strings) else ""

    def run(self) -> None:
        data, pos, end = self.data, len(MAGIC), len(self.data)
        if data[:pos] != MAGIC:
            raise ValueError("the host record does not start with its magic bytes")
        tag_of = {v: k for k, v in _TAG.items()}
        while pos + 8 <= end:
            tag, words = _HEADER.unpack_from(data, pos)
            if tag == 0:
                break
            body, pos = pos + 8, pos + 8 + 8 * words
            if pos > end or tag not in tag_of:
                raise ValueError(f"the host record is cut or damaged at byte {body - 8}")
            getattr(self, "_" + tag_of[tag])(body, words)

    def _string(self, at: int, words: int) -> None:
        raw = self.data[at : at + 8 * words]
        self.strings.append(raw.split(b"\0", 1)[0].decode(errors="replace"))

    def _site(self, at: int, words: int) -> None:
        file, line, column, function, discarded = struct.unpack_from("<qQQqQ", self.data, at)
        self.sites.append([self.string(file), line, column, self.string(function),
                           bool(discarded)])  # fmt: skip

    def _event(self, at: int, words: int) -> None:
        mask = int.from_bytes(self.data[at : at + 8], "little") if words else -1
        layout = self.layouts.get(mask)
        if layout is None:
            present = tuple(k for k in range(len(EVENT_FIELDS)) if mask >> k & 1)
            if mask < 0 or mask >> len(EVENT_FIELDS) or len(present) != words - 1:
                raise ValueError(f"the host record is cut or damaged at byte {at - 8}")
            codes = "".join(EVENT_FIELDS[k][1] for k in present)
            layout = self.layouts[mask] = (struct.Struct("<" + codes), present)
        values = list(_EVENT_DEFAULTS)
        for k, value in zip(layout[1], layout[0].unpack_from(self.data, at + 8), strict=True):
            values[k] = value
        self.events.append(self.decode(dict(zip(NAMES, values, strict=True))))

    def _args(self, at: int, words: int) -> None:
        args = self.events[-1]["args"]
        for k in range(words // 4):
            ptr, alloc, offset, readonly = struct.unpack_from("<QqQQ", self.data, at + 32 * k)
            args.append([ptr, None, 0, bool(readonly)] if alloc < 0
                        else [ptr, alloc, offset, bool(readonly)])  # fmt: skip

    def _status(self, at: int, words: int) -> None:
        seq, status = struct.unpack_from("<Qq", self.data, at)
        self.events[seq]["status"] = status

    def _access(self, at: int, words: int) -> None:
        a = dict(zip(ACCESS_NAMES, _ACCESS.unpack_from(self.data, at), strict=True))
        self.accesses.append([a["after"], a["thread"], a["lo"], a["hi"], a["mode"],
                              self.string(a["file"]), a["line"], a["column"],
                              self.string(a["function"]), self.string(a["pointer"])])  # fmt: skip

    def decode(self, w: dict[str, int]) -> dict[str, Any]:
        """An event's words as the dump's JSON event (docs/host-events.md)."""
        op = OPS[w["op"]]
        flags = {name: bool(w["flags"] >> bit & 1) for bit, name in enumerate(EVENT_FLAGS)}
        e: dict[str, Any] = {"seq": len(self.events), "op": op, "thread": w["thread"],
                             "site": None if w["site"] < 0 else w["site"],
                             "status": w["status"], "t": w["t"], "ns": w["ns"]}  # fmt: skip
        if flags["has_stream"] or op == "launch":
            e["stream"] = w["stream"]
        name = self.string(w["name"])
        dst = [w["ptr0"], None, 0] if w["alloc0"] < 0 else [w["ptr0"], w["alloc0"], w["offset0"]]
        src = [w["ptr1"], None, 0] if w["alloc1"] < 0 else [w["ptr1"], w["alloc1"], w["offset1"]]
        if op == "alloc":
            kind = ALLOC_KINDS[w["value"]] if 0 <= w["value"] < len(ALLOC_KINDS) else "?"
            e.update(kind=kind, ptr=w["ptr0"], bytes=w["bytes"],
                     alloc=None if w["alloc0"] < 0 else w["alloc0"], name=name,
                     gran_log2=w["extra"], flags=w["handle"])  # fmt: skip
            if w["height"]:
                e.update(pitch=w["pitch0"], width=w["width"], height=w["height"])
        elif op == "free":
            e.update(kind=ALLOC_KINDS[w["value"]], ptr=dst)
        elif op in ("memcpy", "memcpy2d"):
            e.update(dst=dst, src=src, bytes=w["bytes"], kind=w["value"])
            e["async"] = flags["async"]
            e["hash"] = f"{w['hash']:016x}" if flags["hashed"] else None
            e["hash_unused"] = flags["hash_unused"]
            if name:
                e["symbol"] = name
            if op == "memcpy2d":
                e.update(dpitch=w["pitch0"], spitch=w["pitch1"], width=w["width"],
                         height=w["height"])  # fmt: skip
        elif op in ("memset", "memset2d"):
            e.update(dst=dst, value=w["value"], bytes=w["bytes"])
            e["async"] = flags["async"]
            if op == "memset2d":
                e.update(pitch=w["pitch0"], width=w["width"], height=w["height"])
        elif op == "launch":
            e.update(kernel=name, grid=[w["grid0"], w["grid1"], w["grid2"]],
                     block=[w["block0"], w["block1"], w["block2"]], shared=w["bytes"],
                     launch=None if w["launch"] < 0 else w["launch"], args=[],
                     opaque=flags["opaque"])  # fmt: skip
        elif op == "stream_create":
            e.update(created=w["handle"], flags=w["value"], priority=w["extra"])
        elif op in ("stream_wait_event", "event_create"):
            e.update(event=w["handle"], flags=w["value"])
        elif op in ("event_destroy", "event_record", "event_sync", "event_query"):
            e["event"] = w["handle"]
        elif op == "host_fn":
            e.update(fn=w["handle"], data=w["ptr0"], callback=w["extra"])
        elif op in ("thread_create", "thread_join"):
            e.update(child=None if w["handle"] == UNKNOWN_THREAD else w["handle"],
                     callback=w["extra"])  # fmt: skip
        elif op in ("mutex_lock", "mutex_unlock"):
            e.update(mutex=w["handle"], callback=w["extra"])
        return e


NAMES = tuple(name for name, _, _ in EVENT_FIELDS)
ACCESS_NAMES = tuple(name for name, _ in ACCESS_FIELDS)


def read(path: Path) -> tuple[list[list[Any]], list[dict[str, Any]], list[list[Any]]]:
    """The sites, events and host-access runs of the record at `path`, in the
    dump's JSON shapes (OSError if it cannot be read; ValueError if damaged)."""
    r = _Reader(path.read_bytes())
    r.run()
    return r.sites, r.events, r.accesses


def inline(doc: dict[str, Any], dump_path: Path) -> None:
    """Puts the record a dump names into the dump's document (`host.sites`,
    `host.events`, `host_accesses`); a dump that carries them itself is left as
    it is."""
    host = doc.get("host")
    if not isinstance(host, dict) or "record" not in host:
        return
    sites, events, accesses = read(dump_path.parent / str(host["record"]))
    host["sites"], host["events"] = sites, events
    doc["host_accesses"] = accesses
