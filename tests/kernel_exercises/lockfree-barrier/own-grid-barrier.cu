// The reference answer of cudasync exercise lockfree-barrier 5, for the tests and the mutation test
// (tests/mutation/mutate.py): never shipped with the tool.
__device__ void grid_barrier(unsigned int* arrived, unsigned int goal) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(arrived, 1u);
    while (atomicAdd(arrived, 0u) < goal) {
    }
    __threadfence();
  }
  __syncthreads();
}
