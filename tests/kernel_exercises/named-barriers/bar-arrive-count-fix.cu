// Reference solution of named-barriers 5 (bar-arrive-count-fix), for the mutation test only: it is
// never shipped. Each sync construct stands on its own line, spelled plainly.

__device__ int swap_warps(int v) {
  __shared__ int slot[2][32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned mine = 1 + warp, theirs = 2 - warp;
  slot[warp][lane] = v;
  asm volatile("bar.arrive %0, %1;" ::"r"(mine), "r"(64) : "memory");
  asm volatile("bar.sync %0, %1;" ::"r"(theirs), "r"(64) : "memory");
  return slot[1 - warp][lane];
}
