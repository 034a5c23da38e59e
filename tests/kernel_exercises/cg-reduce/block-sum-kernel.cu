// The reference answer of cudasync exercise cg-reduce 6, for the tests and the mutation test
// (tests/mutation/mutate.py): never shipped with the tool.
__device__ int block_sum(int v) {
  __shared__ int warp_sums[32];
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  if (threadIdx.x % 32 == 0)
    warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  int sum = 0;
  if (threadIdx.x == 0)
    for (int w = 0; w < blockDim.x / 32; ++w)
      sum += warp_sums[w];
  return sum;
}
