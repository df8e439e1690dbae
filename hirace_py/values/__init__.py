"""The values engine: LD-style value-based race checking on the CPU backend.

Every barrier interval of a block runs each warp against a private copy of the
memory it touches; at the interval's end the copies are diffed against the
memory they were copied from, conflicts between warps are reported, and the
writes are merged into one union copy. Global memory is also privatized per
block for the whole launch (grid boundary). See docs/engines.md.
"""

ENGINES = ("fsm", "values", "both")
"""The race engines `hirace check --engine` accepts."""
