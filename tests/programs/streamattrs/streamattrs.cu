// Stream attributes (an L2 access-policy window, a priority) as a program that
// tunes its cache use sets them: accepted, given back, copied, and refused in
// one line where the value is wrong; the kernel launched in the stream runs
// and is checked.
#include <cstdio>
#include <cuda_runtime.h>

#define N 256

__global__ void shift(int* data, int* out) {
    int i = threadIdx.x;
#ifdef RACY
    if (i + 1 < N) data[i] = data[i + 1];  // thread i+1 writes data[i+1]: a race
#else
    if (i + 1 < N) out[i] = data[i + 1];
#endif
}

static void show(const char* what, cudaStream_t s) {
    cudaLaunchAttributeValue v;
    cudaError_t e = cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v);
    printf("%s: %s, %zu bytes, hit ratio %.2f, hit %d, miss %d\n", what, cudaGetErrorName(e),
           v.accessPolicyWindow.num_bytes, v.accessPolicyWindow.hitRatio,
           int(v.accessPolicyWindow.hitProp), int(v.accessPolicyWindow.missProp));
}

int main() {
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    int persisting = 0, window = 0;
    cudaDeviceGetAttribute(&persisting, cudaDevAttrMaxPersistingL2CacheSize, 0);
    cudaDeviceGetAttribute(&window, cudaDevAttrMaxAccessPolicyWindowSize, 0);
    printf("persisting L2: %s\n", persisting > 0 && persisting == prop.persistingL2CacheMaxSize &&
                                          window == prop.accessPolicyMaxWindowSize ? "yes" : "no");
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, prop.persistingL2CacheMaxSize);

    int *data, *out;
    cudaMalloc(&data, N * sizeof(int));
    cudaMalloc(&out, N * sizeof(int));
    int host[N];
    for (int i = 0; i < N; ++i) host[i] = i;
    cudaMemcpy(data, host, sizeof(host), cudaMemcpyHostToDevice);

    cudaStream_t a, b;
    cudaStreamCreate(&a);
    cudaStreamCreate(&b);
    cudaStreamAttrValue v = {};
    v.accessPolicyWindow.base_ptr = data;
    v.accessPolicyWindow.num_bytes = N * sizeof(int);
    v.accessPolicyWindow.hitRatio = 0.5f;
    v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    printf("set: %s\n", cudaGetErrorName(cudaStreamSetAttribute(a, cudaStreamAttributeAccessPolicyWindow, &v)));
    show("a", a);
    show("b before the copy", b);
    printf("copy: %s\n", cudaGetErrorName(cudaStreamCopyAttributes(b, a)));
    show("b after the copy", b);
    show("the default stream", 0);

    cudaLaunchAttributeValue p = {};
    p.priority = -3;
    cudaStreamSetAttribute(a, cudaLaunchAttributePriority, &p);
    int priority = 7;
    cudaStreamGetPriority(a, &priority);
    cudaStreamGetAttribute(a, cudaLaunchAttributePriority, &p);
    printf("priority %d, attribute %d\n", priority, p.priority);

    v.accessPolicyWindow.num_bytes = size_t(prop.accessPolicyMaxWindowSize) + 1;
    printf("window too large: %s\n",
           cudaGetErrorName(cudaStreamSetAttribute(a, cudaStreamAttributeAccessPolicyWindow, &v)));
    printf("a launch attribute on a stream: %s\n",
           cudaGetErrorName(cudaStreamSetAttribute(a, cudaLaunchAttributeCooperative, &p)));
    cudaError_t last = cudaGetLastError();
    printf("last error %s, then %s\n", cudaGetErrorName(last), cudaGetErrorName(cudaGetLastError()));
    show("a unchanged", a);
    printf("reset: %s\n", cudaGetErrorName(cudaCtxResetPersistingL2Cache()));

    shift<<<1, N, 0, a>>>(data, out);
    cudaStreamSynchronize(a);
#ifdef RACY
    cudaMemcpy(host, data, sizeof(host), cudaMemcpyDeviceToHost);
#else
    cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost);
#endif
    printf("host[0] = %d, host[254] = %d\n", host[0], host[254]);
    cudaStreamDestroy(a);
    cudaStreamDestroy(b);
    cudaFree(data);
    cudaFree(out);
    return 0;
}
