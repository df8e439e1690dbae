// Out of cache: stream_loop with 64 MiB arrays (256 MiB in all, more than the
// last-level cache of the machines measured). bench/profile_chunk.py measures
// the hashing chunk on it.
#define LOG2_N 24
#include "../profile/stream_loop.cu"
