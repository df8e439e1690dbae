// Plain (non-template) structs in global and shared memory:
// - __device__ methods reading and writing members through implicit this
//   (pos[0] += ...), called on a[i] and through p->;
// - whole-struct copies: a struct read from an element into a local and assigned
//   back (the implicit copy assignment operator= writes the element);
// - nested member arrays of structs: a[i].items[j].pos[k];
// - a method returning a reference to a member (a `reference-return` warning: what
//   the caller does through the reference is not tracked);
// - a __shared__ struct with an array member (s.arr[j]) and a scalar member.

struct Particle {
    float pos[2];
    float vel[2];
    __device__ void step(float dt) {
        pos[0] += vel[0] * dt;
        pos[1] += vel[1] * dt;
    }
    __device__ float speed2() const { return vel[0] * vel[0] + vel[1] * vel[1]; }
    __device__ float& x() { return pos[0]; }
};

struct Group {
    Particle items[4];
    int n;
};

struct Scratch {
    int arr[64];
    int total;
};

__global__ void particles(Particle* ps, float* speeds, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    ps[i].step(dt);
    Particle* p = ps + i;
    p->step(0.5f * dt);
    speeds[i] = ps[i].speed2();
    Particle copy = ps[i];
    copy.vel[0] = -copy.vel[0];
    ps[i] = copy;
    p->x() += 1.0f;
}

__global__ void nested_groups(Group* groups, float* out) {
    int g = blockIdx.x;
    int t = threadIdx.x;
    int j = t / 2;
    int k = t % 2;
    if (t == 0) groups[g].n = 4;
    groups[g].items[j].pos[k] *= 2.0f;
    groups[g].items[j].vel[k] -= groups[g].items[j].pos[k];
    __syncthreads();
    out[g * blockDim.x + t] = groups[g].items[j].vel[k] + groups[g].items[(j + 1) % 4].pos[k];
}

__global__ void shared_struct(const int* in, int* out) {
    __shared__ Scratch s;
    int t = threadIdx.x;
    if (t == 0) s.total = 0;
    s.arr[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    atomicAdd(&s.total, s.arr[(t + 1) % blockDim.x]);
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = s.total - s.arr[t];
}
