// Templated structs with __device__ methods defined in the class:
// - Accumulator<T>: a struct holding a pointer to global memory, methods that read
//   and write through the member pointer (data[i], implicit this->data);
// - Ring<T, N>: a struct living in global memory whose methods access its members
//   through `this` (implicit this->slots[k], this->head, and explicit this->);
// - a const method, a method calling another method, and a templated member function.

template <typename T>
struct Accumulator {
    T* data;
    int n;
    __device__ T get(int i) const { return data[i % n]; }
    __device__ void add(int i, T v) { data[i % n] += v; }
    __device__ T add_and_get(int i, T v) {
        add(i, v);
        return get(i);
    }
    template <typename U>
    __device__ void add_scaled(int i, U v, U by) {
        data[i % n] += (T)(v * by);
    }
};

template <typename T, int N>
struct Ring {
    T slots[N];
    int head;
    __device__ void push(T v) {
        slots[head % N] = v;
        head++;
    }
    __device__ T sum() const {
        T s = 0;
        for (int k = 0; k < N; ++k) s += this->slots[k];
        return s;
    }
    __device__ void reset() { this->head = 0; }
};

__global__ void accumulators(int* data, const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Accumulator<int> acc{data, n};
    acc.add(i, in[i]);
    out[i] = acc.get(i) + acc.add_and_get(i, 2);
    acc.add_scaled<float>(i, 1.5f, 4.0f);
}

__global__ void rings(Ring<int, 4>* rings, const int* in, int* sums, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Ring<int, 4>* r = rings + i;
    r->reset();
    for (int k = 0; k < 6; ++k) r->push(in[i] + k);
    sums[i] = r->sum() + rings[i].head;
}
