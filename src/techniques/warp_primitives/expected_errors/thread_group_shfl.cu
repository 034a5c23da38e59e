// Fan, 10.4: "a plain thread_group has no shuffle functions". nvcc must refuse this file: the
// build compiles it, expects the error and embeds nvcc's first error line for the cg-tiles part.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void thread_group_shfl(int* y) {
  cg::thread_group g32 = cg::tiled_partition(cg::this_thread_block(), 32);
  y[threadIdx.x] += g32.shfl_down(y[threadIdx.x], 1);
}
