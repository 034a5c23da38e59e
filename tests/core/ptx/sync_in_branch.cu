// PTX fixture for tests/core/ptx_machine_test.cpp: nvcc -ptx -arch=compute_90 -lineinfo -std=c++17 sync_in_branch.cu -o sync_in_branch.ptx
// (the #line directives give the student's file and the harness their names, as NVRTC's program does)
#line 1 "block_sum.cu"
__device__ int block_sum(int v) {
  __shared__ int sums[128];
  sums[threadIdx.x] = v;
  if (threadIdx.x < 64) {
    __syncthreads();
    v += sums[threadIdx.x + 64];
  }
  return v;
}
#line 1 "cudasync-harness"
extern "C" __global__ void cudasync_exercise(const int* in, int* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = block_sum(in[t]);
}
