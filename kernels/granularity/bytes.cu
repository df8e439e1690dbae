// Byte granularity (semantics.md 1: adjacent bytes are different locations).
//
// gran_char_neighbors: thread i writes c[i] of a char array: neighbouring
//   threads write neighbouring bytes of one 4- or 8-byte word.  Each byte has
//   one writer: race-free.
// gran_short_neighbors: the same with 2-byte shorts: race-free.
// gran_char_same: thread i writes c[i / 2]: threads 2k and 2k+1 write the same
//   byte with nothing in between: write-write race [CW]-[CW].
// gran_same_value: every thread writes the value 1 to flag[0]; writing the same
//   value twice is still a race: write-write [SV]-[SV].

__global__ void gran_char_neighbors(char *c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = (char)(i & 0x7f);
}

__global__ void gran_short_neighbors(short *s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[i] = (short)(i * 3);
}

__global__ void gran_char_same(char *c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i / 2] = (char)(i & 0x7f);                      // [CW]
}

__global__ void gran_same_value(int *flag)
{
    flag[0] = 1;                                      // [SV]
}
