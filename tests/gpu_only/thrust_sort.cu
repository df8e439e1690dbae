// Thrust, whose CUB includes <cooperative_groups/memcpy_async.h> itself:
// a GPU-only header a system header includes is no use of the user's.
// warns: nothing GPU-only
#include <thrust/device_vector.h>
#include <thrust/sort.h>

int main() {
  thrust::device_vector<int> v(16, 3);
  thrust::sort(v.begin(), v.end());
  return v[0] == 3 ? 0 : 1;
}
