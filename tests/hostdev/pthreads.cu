// The main thread uploads a pinned buffer, then starts a pthread that
// refills it, runs a kernel on it and copies the result back, and tells the
// main thread it is done through a mutex and a condition variable; the main
// thread then sums the result and joins the worker. Creating the thread
// orders the upload before the worker; the mutex orders the worker's result
// before the sum.
// BUG_NO_SYNC: the upload is asynchronous and nothing waits for it before the
// worker overwrites the buffer it reads.
#include <cstdio>
#include <pthread.h>
#include <cuda_runtime.h>

#define N 128

struct Job {
  int* h;
  int* d;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done;
};

__global__ void twice(int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = 2 * v[i];
}

void* worker(void* p) {
  Job* job = static_cast<Job*>(p);
  for (int i = 0; i < N; ++i) job->h[i] = i;
  cudaMemcpy(job->d, job->h, N * sizeof(int), cudaMemcpyHostToDevice);
  twice<<<1, N>>>(job->d, N);
  cudaMemcpy(job->h, job->d, N * sizeof(int), cudaMemcpyDeviceToHost);
  pthread_mutex_lock(&job->mu);
  job->done = 1;
  pthread_cond_signal(&job->cv);
  pthread_mutex_unlock(&job->mu);
  return nullptr;
}

int main() {
  Job job;
  job.done = 0;
  pthread_mutex_init(&job.mu, nullptr);
  pthread_cond_init(&job.cv, nullptr);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaMallocHost(&job.h, N * sizeof(int));
  cudaMalloc(&job.d, N * sizeof(int));
  for (int i = 0; i < N; ++i) job.h[i] = 1;
  cudaMemcpyAsync(job.d, job.h, N * sizeof(int), cudaMemcpyHostToDevice, s);
#ifndef BUG_NO_SYNC
  cudaStreamSynchronize(s);
#endif
  pthread_t t;
  pthread_create(&t, nullptr, worker, &job);
  pthread_mutex_lock(&job.mu);
  while (!job.done) pthread_cond_wait(&job.cv, &job.mu);
  pthread_mutex_unlock(&job.mu);
  long sum = 0;
  for (int i = 0; i < N; ++i) sum += job.h[i];
  printf("sum: %ld\n", sum);
  pthread_join(t, nullptr);
  cudaFree(job.d);
  cudaFreeHost(job.h);
  cudaStreamDestroy(s);
  return 0;
}
