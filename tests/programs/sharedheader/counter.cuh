// Included by both sources: its device function is instrumented once, in one
// rewritten copy both units compile, each numbering its sites after its own.
#pragma once

__device__ inline void bump(int* counter) { counter[0] += 1; }
