// Programs for tests/test_time_limits.py: what the CPU backend's time limits
// count (CPU time) and its wall-clock backstop. argv[1] picks the behaviour:
//   forever      launches a short kernel in an endless loop (uses CPU)
//   nap          one launch, 3 s asleep on the host, another launch
//   busy-for MS  launches a short kernel until MS ms of wall time have passed
//   wait MS      one launch whose thread spins (no barrier, no atomic) on a
//                flag a host thread sets after MS ms of wall time
//   doze MS      the same, the spinning loop calling __nanosleep
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <unistd.h>

__global__ void step(int* counter) { counter[threadIdx.x] += 1; }

__global__ void wait_for(volatile int* flag, int* seen) {
    while (flag[0] == 0) {
    }
    seen[0] = flag[0];
}

__global__ void doze_for(volatile int* flag, int* seen) {
    while (flag[0] == 0) __nanosleep(1000);
    seen[0] = flag[0];
}

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    const char* mode = argv[1];
    const long ms = argc > 2 ? atol(argv[2]) : 0;
    int* counter;
    cudaMalloc(&counter, 32 * sizeof(int));
    cudaMemset(counter, 0, 32 * sizeof(int));
    if (strcmp(mode, "forever") == 0) {
        for (;;) step<<<1, 32>>>(counter);
    } else if (strcmp(mode, "nap") == 0) {
        step<<<1, 32>>>(counter);
        cudaDeviceSynchronize();
        sleep(3);
        step<<<1, 32>>>(counter);
    } else if (strcmp(mode, "busy-for") == 0) {
        const auto start = std::chrono::steady_clock::now();
        while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(ms)) {
            step<<<1, 32>>>(counter);
            cudaDeviceSynchronize();
        }
    } else if (strcmp(mode, "wait") == 0 || strcmp(mode, "doze") == 0) {
        int* flag;
        cudaMallocHost(&flag, sizeof(int));
        flag[0] = 0;
        std::thread setter([flag, ms] {
            std::this_thread::sleep_for(std::chrono::milliseconds(ms));
            reinterpret_cast<volatile int*>(flag)[0] = 1;
        });
        if (strcmp(mode, "wait") == 0)
            wait_for<<<1, 1>>>(flag, counter);
        else
            doze_for<<<1, 1>>>(flag, counter);
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            setter.detach();  // still asleep: exit does not wait for it
            printf("launch: %s\n", cudaGetErrorName(e));
            return 1;
        }
        setter.join();
    } else {
        return 2;
    }
    cudaError_t e = cudaDeviceSynchronize();
    printf("done: %s\n", cudaGetErrorName(e));
    return e == cudaSuccess ? 0 : 1;
}
