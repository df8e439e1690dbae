// Feeds traces through the runtime's step() (templates/hirace_runtime.cuh.j2)
// and prints the state of the accessed word after every event, for
// tests/test_step_cxx.py to compare with hirace_py.replay. Built with
// HIRACE_CHECK_FAST, so every fast-path decision is also checked against the
// full table lookup (a mismatch traps).
//
// Input (stdin, whitespace-separated integers):
//   blocks warps lanes n_locs
//   tid_shift block_shift wc_shift bc_shift site_bits tid_bits block_bits wc_bits
//   rc_shift rc_bits
//   n_traces n_events
//   then per trace, per event: op who loc site, op in hirace_py.trace's codes:
//   (below 32 an access of word `loc`, action op & 7 and memory order op >> 3;
//   an atomic's flag is the word's address; 32 a block barrier of block `who`,
//   33 a warp barrier of warp `who` with the lane mask `loc`, 0 for all lanes:
//   each lane in the mask calls warp_barrier(mask); 35 and 36 a device- and a
//   block-scope fence by thread `who`)
// Output (stdout): per trace one line of states, -1 at barriers.
// Built with -DHIRACE_GROUP_LOG2=k, the runtime's lane groups are 2^k lanes.
#define HIRACE_PROGRAM 1
#define HIRACE_CHECK_FAST 1
#include "hirace_runtime.cuh"

#include <cstdio>
#include <vector>

namespace {

unsigned long long read_u() {
  unsigned long long v = 0;
  if (std::scanf("%llu", &v) != 1) {
    std::fprintf(stderr, "step_harness: truncated input\n");
    std::exit(2);
  }
  return v;
}

}  // namespace

int main() {
  const unsigned blocks = read_u(), warps = read_u(), lanes = read_u(), n_locs = read_u();
  hirace::State& g = hirace_state;
  g.tid_shift = read_u();
  g.block_shift = read_u();
  g.wc_shift = read_u();
  g.bc_shift = read_u();
  g.site_bits = read_u();
  g.tid_bits = read_u();
  g.block_bits = read_u();
  g.wc_bits = read_u();
  g.rc_shift = read_u();
  g.rc_bits = read_u();
  g.max_rc = (1ull << g.rc_bits) - 1;
  g.site_shift = hirace::kStateBits;
  g.tid_mask = ((1ull << g.tid_bits) - 1) << g.tid_shift;
  g.block_mask = ((1ull << g.block_bits) - 1) << g.block_shift;
  g.tid_field = (1ull << g.tid_bits) - 1;
  g.wc_field = (1ull << g.wc_bits) - 1;
  g.site_field = (1ull << g.site_bits) - 1;
  g.max_bc = g.max_wc = 1000;
  static hirace::Counters counters;
  static hirace::RaceRecord records[1024];
  g.counters = reinterpret_cast<unsigned long long>(&counters);
  g.reports = reinterpret_cast<unsigned long long>(records);
  g.report_cap = 1024;
  g.block_lo = 0;
  g.block_hi = blocks;
  g.enabled = 1;

  // Trace thread (block, warp, lane) runs as tid warp * 32 + lane of its block,
  // so that the runtime's warps (tid / 32) are the trace's.
  hr::g_block_dim = dim3(warps * 32);
  hr::g_grid_dim = dim3(blocks);
  const unsigned threads = blocks * warps * lanes;
  const unsigned long long n_traces = read_u(), n_events = read_u();
  std::vector<unsigned long long> words(n_locs);
  for (unsigned long long trace = 0; trace < n_traces; ++trace) {
    ++hr::g_launch_serial;  // a new launch: the runtime forgets its messages
    std::vector<hirace::Thread> th;
    th.reserve(threads);
    for (unsigned t = 0; t < threads; ++t) {
      unsigned lane = t % lanes, warp = (t / lanes) % warps, block = t / (lanes * warps);
      hr::g_thread_idx = uint3{warp * 32 + lane, 0, 0};
      hr::g_block_idx = uint3{block, 0, 0};
      hr::g_thread_linear = warp * 32 + lane;
      hr::g_block_linear = block;
      ++hr::g_block_serial;  // as the engine does at a block's start
      th.emplace_back();
    }
    for (auto& w : words) w = 0;
    for (unsigned long long e = 0; e < n_events; ++e) {
      unsigned op = read_u(), who = read_u(), loc = read_u(), site = read_u();
      int out = -1;
      if (op < 32) {
        unsigned action = op & 7u, order = op >> 3;
        hirace::before_atomic(th[who], &words[loc], action, order);
        hirace::step(th[who], &words[loc], action, site, 0, loc);
        hirace::after_atomic(th[who], &words[loc], action, order);
        out = int(words[loc] & hirace::kStateMask);
      } else if (op == 35 || op == 36) {
        th[who].fence(op == 35);
      } else if (op == 32) {
        for (unsigned t = who * warps * lanes; t < (who + 1) * warps * lanes; ++t)
          th[t].block_barrier();
      } else if (op == 33) {
        unsigned mask = loc == 0 ? 0xffffffffu : loc;
        for (unsigned t = who * lanes; t < (who + 1) * lanes; ++t)
          if (mask >> (t % lanes) & 1u) th[t].warp_barrier(mask);
      }
      std::printf(e + 1 < n_events ? "%d " : "%d\n", out);
    }
  }
  return 0;
}
