// Reference solution of deadlock-demo 6 (divergent-syncthreads-fix), for the mutation test only:
// it is never shipped. Each sync construct stands on its own line, spelled plainly.

__device__ int tree_sum(int v, int* buf) {
  const int t = threadIdx.x;
  buf[t] = v;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (t < half) buf[t] += buf[t + half];
    __syncthreads();
  }
  return buf[t];
}
