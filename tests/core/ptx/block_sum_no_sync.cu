// PTX fixture for tests/core/ptx_machine_test.cpp: nvcc -ptx -arch=compute_90 -lineinfo -std=c++17 block_sum_no_sync.cu -o block_sum_no_sync.ptx
// (the #line directives give the student's file and the harness their names, as NVRTC's program does)
#line 1 "block_sum.cu"
__device__ int block_sum(int v) {
  __shared__ int warp_sums[4];
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = v;
  if (threadIdx.x == 0) v = warp_sums[0] + warp_sums[1] + warp_sums[2] + warp_sums[3];
  return v;
}
#line 1 "cudasync-harness"
extern "C" __global__ void cudasync_exercise(const int* in, int* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = block_sum(in[t]);
}
