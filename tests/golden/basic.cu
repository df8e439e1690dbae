// Reads, writes, compound assignment and increments on a global array.
__global__ void basic(float* a, const float* b, int* count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    a[i] = b[i] * 2.0f;
    a[i] += b[(i + 1) % n];
    count[i]++;
    float local[2] = {a[i], 0.0f};
    local[1] = local[0];
  }
}
