// Accesses in control-flow conditions: if / else if, switch on a loaded value,
// while and do-while conditions reading global memory, a for condition and the
// conditions of a nested ternary; also break and continue around accesses.

__global__ void control_flow(const int* in, int* out, int* steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (in[i] > 66) {
        out[i] = 3;
    } else if (in[i] > 33) {
        out[i] = 2;
    } else {
        out[i] = 1;
    }
    switch (in[i] % 4) {
        case 0:
            out[i] += 10;
            break;
        case 1:
            out[i] -= in[(i + 1) % n];
            break;
        default:
            out[i] *= 2;
    }
    int k = i;
    while (in[k] % 3 != 0 && k > 0) --k;
    steps[i] = i - k;
    do {
        steps[i] += 100;
    } while (steps[i] < in[i] * 10);
    for (int j = 0; out[i] < 50 && j < 8; ++j) {
        if (in[(i + j) % n] % 2) continue;
        out[i] += in[(i + j) % n];
        if (out[i] > 40) break;
    }
    steps[i] += in[i] < 10 ? (in[i] < 5 ? in[0] : in[1]) : in[2];
}
