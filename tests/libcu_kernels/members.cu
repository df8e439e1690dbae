// Every member of a libcu++ atomic that the catalogue's [libcu] table lists
// (hirace_py/cuda_api.toml), each line tagged `// all: MEMBER, ...`, for
// tests/test_libcu.py: parsed with the toolkit's <cuda/atomic> it checks the
// instrumenter classifies each; built for the CPU backend (hirace's own
// <cuda/atomic>) it checks what each computes.
#include <cuda/atomic>

// fetch_<op>(v) on *cell: the members in sorted order of their names.
__global__ void fetch(cuda::atomic<int> *cell, int *returned, int which, int v)
{
    switch (which) {
    case 0: returned[0] = cell->fetch_add(v); break;  // all: fetch_add
    case 1: returned[0] = cell->fetch_and(v); break;  // all: fetch_and
    case 2: returned[0] = cell->fetch_max(v); break;  // all: fetch_max
    case 3: returned[0] = cell->fetch_min(v); break;  // all: fetch_min
    case 4: returned[0] = cell->fetch_or(v); break;  // all: fetch_or
    case 5: returned[0] = cell->fetch_sub(v); break;  // all: fetch_sub
    case 6: returned[0] = cell->fetch_xor(v); break;  // all: fetch_xor
    }
}

// The others, one after another on one atomic; out[k] after each.
__global__ void others(int *out, cuda::atomic<int> *a)
{
    a->store(7);  // all: store
    out[0] = a->load();  // all: load
    out[1] = *a;  // all: operator T
    *a = 9;  // all: operator=
    out[2] = a->load(cuda::memory_order_relaxed);  // all: load
    out[3] = a->exchange(1);  // all: exchange
    out[4] = a->load();  // all: load
    int expected = 1;
    out[5] = a->compare_exchange_strong(expected, 11) ? 11 : -1;  // all: compare_exchange_strong
    expected = 3;
    out[6] = a->compare_exchange_weak(expected, 20) ? 1 : 0;  // all: compare_exchange_weak
    out[7] = expected;
    out[8] = ++*a;  // all: operator++
    out[9] = (*a)--;  // all: operator--
    out[10] = (*a += 2);  // all: operator+=
    out[11] = (*a -= 8);  // all: operator-=
    out[12] = (*a &= 7);  // all: operator&=
    out[13] = (*a |= 2);  // all: operator|=
    out[14] = (*a ^= 3);  // all: operator^=
    a->wait(0);  // all: wait
    a->notify_one();  // all: notify_one
    a->notify_all();  // all: notify_all
    out[15] = a->is_lock_free() ? 1 : 0;  // all: is_lock_free
}
