// PTX fixture for tests/core/ptx_machine_test.cpp: nvcc -ptx -arch=compute_90 -lineinfo -std=c++17 warp_sum_half_mask.cu -o warp_sum_half_mask.ptx
// (the #line directives give the student's file and the harness their names, as NVRTC's program does)
#line 1 "warp_sum.cu"
__device__ int warp_sum(int v) {
  for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0x0000ffffu, v, d);
  return v;
}
#line 1 "cudasync-harness"
extern "C" __global__ void cudasync_exercise(const int* in, int* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = warp_sum(in[t]);
}
