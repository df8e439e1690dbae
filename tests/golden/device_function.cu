// A device function gets an instrumented overload taking the thread context;
// the kernel calls the overload, host code keeps the original.
struct Pair { int key; float value; };

__device__ float weight(const Pair* p, int i) { return p[i].value * p->key; }

__global__ void apply(Pair* pairs, float* out) {
  int i = threadIdx.x;
  out[i] = weight(pairs, i);
  pairs[i].key = 0;
}
