// __device__ helper functions that receive a pointer; the access sites are the
// lines inside the helpers.
//
// forms_device_fn (1 block of 64): thread t stores a[t] through store_at [HW] and
//   loads a[(t + 1) % n] through load_at [HR], no barrier: element j is written by
//   thread j and read by thread j - 1: read-write race [HW]-[HR] (global).
// forms_device_fn_shared_ok: helpers put/get on a shared array, with a barrier
//   between the put and the get: race-free.
// forms_device_fn_shared_race: helpers sput/sget on a shared array with no
//   barrier; thread t reads the slot of thread 63 - t (never itself with 64
//   threads): read-write race [SPW]-[SGR] (shared).

__device__ void store_at(int *p, int v)
{
    *p = v;                                           // [HW]
}

__device__ int load_at(const int *p, int k)
{
    return p[k];                                      // [HR]
}

__device__ void put(int *buf, int i, int v)
{
    buf[i] = v;
}

__device__ int get(const int *buf, int i)
{
    return buf[i];
}

__device__ void sput(int *buf, int i, int v)
{
    buf[i] = v;                                       // [SPW]
}

__device__ int sget(const int *buf, int i)
{
    return buf[i];                                    // [SGR]
}

__global__ void forms_device_fn(int *a, int *out)
{
    int t = threadIdx.x;
    store_at(a + t, t);
    out[t] = load_at(a, (t + 1) % blockDim.x);
}

__global__ void forms_device_fn_shared_ok(const int *in, int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    put(s, t, in[t]);
    __syncthreads();
    out[t] = get(s, 63 - t);
}

__global__ void forms_device_fn_shared_race(const int *in, int *out)
{
    __shared__ int s[64];
    int t = threadIdx.x;
    sput(s, t, in[t]);
    out[t] = sget(s, 63 - t);
}
