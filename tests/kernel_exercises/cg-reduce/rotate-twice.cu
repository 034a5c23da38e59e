// Reference solution of cg-reduce 7 (rotate-twice), for the mutation test only: it is never
// shipped. Each sync construct stands on its own line, spelled plainly.

__device__ int rotate2(int v, int* buf) {
  const int t = threadIdx.x;
  const int next = (t + 1) % blockDim.x;
  buf[t] = v;
  __syncthreads();
  v = buf[next];
  __syncthreads();
  buf[t] = v;
  __syncthreads();
  v = buf[next];
  return v;
}
