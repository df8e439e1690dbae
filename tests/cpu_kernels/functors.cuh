#pragma once
// Included by templates.cu with #include "..." (the source's directory).
struct Square {
    template <typename T>
    __host__ __device__ static T apply(T v) { return v * v; }
};
