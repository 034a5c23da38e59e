// Reference solution of warp-primitives 12 (warp-sum-shared-fix), for the mutation test only: it
// is never shipped. Each sync construct stands on its own line, spelled plainly.

__device__ int warp_sum_shared(int v) {
  __shared__ int s[1024];
  const int lane = threadIdx.x % 32;
  int* w = s + (threadIdx.x - lane);
  w[lane] = v;
  __syncwarp(0xffffffff);
  for (int offset = 16; offset > 0; offset >>= 1) {
    if (lane < offset) w[lane] += w[lane + offset];
    __syncwarp(0xffffffff);
  }
  return w[0];
}
