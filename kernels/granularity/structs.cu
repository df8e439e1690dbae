// Struct fields are separate locations.
//
// gran_struct_fields: thread 2k writes p[k].key and thread 2k+1 writes p[k].val
//   (through p->f); the two fields of one struct are different bytes: race-free.
// gran_struct_same_field: threads 2k and 2k+1 both write p[k].key [KEYW], with
//   nothing in between: write-write race [KEYW]-[KEYW].  The val field is written
//   by thread 2k only.
// The struct array is passed as an int32 array of 2 * (number of structs).

struct KeyVal {
    int key;
    int val;
};

__global__ void gran_struct_fields(KeyVal *p)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    KeyVal *kv = p + i / 2;
    if (i % 2 == 0)
        kv->key = i;
    else
        kv->val = -i;
}

__global__ void gran_struct_same_field(KeyVal *p)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    p[i / 2].key = i;                                 // [KEYW]
    if (i % 2 == 0)
        p[i / 2].val = -i;
}
