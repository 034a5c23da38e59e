// Reference solution of threadfence 8 (last-block-sum), for the mutation test only: it is never
// shipped. Each sync construct stands on its own line, spelled plainly.

__device__ void grid_sum(int block_sum, int* partials, unsigned* count, int* total) {
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_sum;
    __threadfence();
    const unsigned ticket = atomicAdd(count, 1u);
    if (ticket == gridDim.x - 1) {
      __threadfence();
      int sum = 0;
      for (int b = 0; b < gridDim.x; ++b) sum += partials[b];
      *total = sum;
    }
  }
}
