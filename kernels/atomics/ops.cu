// Atomic operations other than add, across blocks.
//
// atom_ops_cross_block: atomicMax/atomicMin on c[0], atomicExch/atomicCAS on c[1],
//   atomicOr_system/atomicSub on c[2], from every thread of every block.  All of
//   them are device- or system-scope (GA); GA vs GA never conflicts, even across
//   blocks and across different operations: race-free.
// atom_block_ops_cross_block: the block-scope forms from every thread of 4
//   blocks.  Any two of them on one element from different blocks conflict and
//   are unordered.  Per element:
//     c[0]: [MX] atomicMax_block and [SB] atomicSub_block, each executed by
//           threads of every block -> [MX]-[MX], [SB]-[SB], [MX]-[SB]
//     c[1]: [EX] atomicExch_block  -> [EX]-[EX]
//     c[2]: [CS] atomicCAS_block   -> [CS]-[CS]
//   Five atomic-atomic line pairs (global).

__global__ void atom_ops_cross_block(int *c)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    atomicMax(&c[0], v);
    atomicMin(&c[0], -v);
    atomicExch(&c[1], v);
    atomicCAS(&c[1], v - 1, v);
    atomicOr_system(&c[2], 1 << (v % 31));
    atomicSub(&c[2], 1);
}

__global__ void atom_block_ops_cross_block(int *c)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    atomicMax_block(&c[0], v);                        // [MX]
    atomicExch_block(&c[1], v);                       // [EX]
    atomicCAS_block(&c[2], 0, v);                     // [CS]
    atomicSub_block(&c[0], 1);                        // [SB]
}
