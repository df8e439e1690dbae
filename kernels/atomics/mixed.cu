// Mixed scopes.
//
// atom_ba_vs_ga_cross_block (2 blocks): block 0 uses atomicAdd_block [MB] and
//   block 1 uses atomicAdd [MG] on c[0].  Within block 0 the BA/BA pairs and
//   within block 1 the GA/GA pairs do not conflict; a BA of block 0 and a GA of
//   block 1 conflict (different blocks, not both GA) and are unordered:
//   atomic-atomic race [MB]-[MG].
// atom_mixed_scope_same_block (4 blocks): inside each block, threads use
//   atomicAdd_block, atomicAdd and atomicAdd_system on the block's own counter
//   c[blockIdx.x].  Atomics of one block never conflict, whatever their scopes:
//   race-free.

__global__ void atom_ba_vs_ga_cross_block(int *c)
{
    if (blockIdx.x == 0)
        atomicAdd_block(&c[0], 1);                    // [MB]
    else
        atomicAdd(&c[0], 1);                          // [MG]
}

__global__ void atom_mixed_scope_same_block(int *c)
{
    int t = threadIdx.x;
    if (t % 3 == 0)
        atomicAdd_block(&c[blockIdx.x], 1);
    else if (t % 3 == 1)
        atomicAdd(&c[blockIdx.x], 1);
    else
        atomicAdd_system(&c[blockIdx.x], 1);
}
