// A race whose consequence differs between the engines' executions.
//
// push: lane 0 of every warp appends its warp number to a list through a
// plain counter, `list[(*n)++] = w` in two lines (the counter is the race). The
// FSM engine checks the plain execution, where the fibers of the CPU backend
// increment the counter one after another, so every warp gets its own slot:
// it reports the race on n, and none on list. The values engine runs every
// warp from the interval's start values: each reads n = 0 and writes list[0],
// a write-write race on list that a GPU can make too (every warp reading n
// before any writes it), but that the FSM run did not make.

__global__ void push(int *list, int *n)
{
    if (threadIdx.x % 32 == 0) {
        int slot = (*n)++;
        list[slot] = (int)(threadIdx.x / 32) + 1;
    }
}
