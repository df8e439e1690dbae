// Atomics of each scope, within a block and across blocks (semantics.md 1: atomics
// of threads in the same block never conflict with each other; atomics of
// threads in different blocks conflict unless both are device/system scope (GA)).
//
// atom_block_same_block: every block uses its own four counters c[b + k*grid]
//   with atomicAdd_block / atomicMax_block / atomicExch_block / atomicCAS_block.
//   All accesses to one counter are block-scope atomics of one block: race-free.
// atom_block_cross_block: every thread of every block does atomicAdd_block on
//   c[0] [BA].  Two block-scope atomics of different blocks conflict and nothing
//   orders blocks: atomic-atomic race [BA]-[BA].
// atom_device_cross_block: atomicAdd (device scope) on c[0] from every block:
//   GA vs GA never conflicts: race-free.
// atom_system_cross_block: atomicAdd_system on c[0], plus atomicAdd (device) on
//   c[1] and atomicAdd_system on c[1] from different lines: all GA: race-free.

__global__ void atom_block_same_block(int *c)
{
    int b = blockIdx.x;
    int g = gridDim.x;
    atomicAdd_block(&c[b], 1);
    atomicMax_block(&c[g + b], (int)threadIdx.x);
    atomicExch_block(&c[2 * g + b], (int)threadIdx.x);
    atomicCAS_block(&c[3 * g + b], 0, (int)threadIdx.x + 1);
}

__global__ void atom_block_cross_block(int *c)
{
    atomicAdd_block(&c[0], 1);                        // [BA]
}

__global__ void atom_device_cross_block(int *c)
{
    atomicAdd(&c[0], 1);
}

__global__ void atom_system_cross_block(int *c)
{
    atomicAdd_system(&c[0], 1);
    if (blockIdx.x % 2 == 0)
        atomicAdd(&c[1], 2);
    else
        atomicAdd_system(&c[1], 3);
}
