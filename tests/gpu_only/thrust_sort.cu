// Thrust, whose CUB includes <cooperative_groups/memcpy_async.h> itself:
// a GPU-only header a system header includes is no use of the user's, so
// Thrust is the one feature named.
// warns: Thrust (#include <thrust/device_vector.h>)
// warns: Thrust (#include <thrust/sort.h>)
// refuses: Thrust (#include <thrust/device_vector.h>)
#include <thrust/device_vector.h>
#include <thrust/sort.h>

int main() {
  thrust::device_vector<int> v(16, 3);
  thrust::sort(v.begin(), v.end());
  return v[0] == 3 ? 0 : 1;
}
