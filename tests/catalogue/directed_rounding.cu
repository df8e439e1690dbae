// Directed-rounding intrinsics (_rz, _ru, _rd), as interval arithmetic uses
// them: each result is compared with the neighbour it must round to, and the
// default rounding mode must be back in force after them. Every flag is 1.
// expect: 1 1 1 1 1 1 1 1 1 1 1 1
#include <cmath>
#include <cstdio>

__global__ void rounding(const double* in, int* ok) {
  double one = in[0], tiny = in[1], third = in[2];
  double up = nextafter(one, 2.0);
  ok[0] = __dadd_ru(one, tiny) == up;
  ok[1] = __dadd_rd(one, tiny) == one;
  ok[2] = __dsub_rz(-one, tiny) == -one;
  ok[3] = __ddiv_ru(one, third) == nextafter(__ddiv_rd(one, third), 1.0);
  ok[4] = __dmul_ru(up, up) > __dmul_rd(up, up);
  ok[5] = __dsqrt_ru(2.0 * one) == nextafter(__dsqrt_rd(2.0 * one), 2.0);
  ok[6] = __fma_ru(one, one, tiny) == up && __fma_rd(one, one, tiny) == one;
  ok[7] = __double2float_ru(one + 1e-10) == nextafterf(1.0f, 2.0f) &&
          __double2float_rd(one + 1e-10) == 1.0f;
  ok[8] = __int2float_ru(16777217) == 16777218.0f && __int2float_rd(16777217) == 16777216.0f;
  ok[9] = __ll2double_rz((1LL << 53) + 1) == 9007199254740992.0;
  ok[10] = __fdiv_ru(1.0f, 3.0f) == nextafterf(__fdiv_rd(1.0f, 3.0f), 1.0f) &&
           __frcp_rz(3.0f) == __fdiv_rd(1.0f, 3.0f);
  ok[11] = one + tiny == one;  // round to nearest again
}

int main() {
  double* in;
  int* ok;
  cudaMallocManaged(&in, 3 * sizeof(double));
  cudaMallocManaged(&ok, 12 * sizeof(int));
  in[0] = 1.0;
  in[1] = 1e-30;
  in[2] = 3.0;
  rounding<<<1, 1>>>(in, ok);
  cudaDeviceSynchronize();
  for (int i = 0; i < 12; ++i) printf(i ? " %d" : "%d", ok[i]);
  printf("\n");
  cudaFree(in);
  cudaFree(ok);
  return 0;
}
