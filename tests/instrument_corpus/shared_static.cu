// Static __shared__ memory:
// - a scalar __shared__ int written by one thread and read by all after a barrier,
//   and updated with += and ++ by a single thread;
// - a 1-D array with compound assignments (*=, -=, ^=) and ++/-- (pre and post);
// - a 2-D array tile[y][x] with a 2-D block (a transpose through shared memory);
// - an array of structs, with members, member arrays and increments.

__global__ void shared_scalar_and_1d(const int* in, int* out) {
    __shared__ int count;
    __shared__ int vals[128];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    if (t == 0) count = 10;
    vals[t] = in[g];
    __syncthreads();
    vals[t] *= 2;
    vals[t] -= count;
    vals[t] ^= 0x0f;
    ++vals[t];
    vals[t]--;
    int before = vals[t]++;
    int after = --vals[t];
    __syncthreads();
    if (t == 0) {
        count += vals[blockDim.x - 1];
        count++;
    }
    __syncthreads();
    out[g] = vals[(t + 1) % blockDim.x] + count + before - after;
}

// 16 x 16 tiles; the padding column keeps it a plain 2-D array with a stride.
__global__ void transpose_tile(const float* in, float* out, int width) {
    __shared__ float tile[16][17];
    int x = blockIdx.x * 16 + threadIdx.x;
    int y = blockIdx.y * 16 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();
    int tx = blockIdx.y * 16 + threadIdx.x;
    int ty = blockIdx.x * 16 + threadIdx.y;
    out[ty * width + tx] = tile[threadIdx.x][threadIdx.y];
    tile[threadIdx.x][threadIdx.y] += 1.0f;
}

struct Bin {
    int key;
    int count;
    int recent[2];
};

__global__ void shared_structs(const int* in, int* out) {
    __shared__ Bin bins[64];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    bins[t].key = in[g] % 10;
    bins[t].count = 0;
    bins[t].recent[0] = in[g];
    bins[t].recent[1] = -in[g];
    __syncthreads();
    Bin* mine = &bins[t];
    for (int k = 0; k < (int)blockDim.x; ++k) {
        if (bins[k].key == mine->key) mine->count++;
    }
    ++bins[t].recent[1];
    __syncthreads();
    const Bin& other = bins[(t + 7) % blockDim.x];
    out[g] = other.count * 1000 + other.recent[0] + bins[t].recent[1];
}
