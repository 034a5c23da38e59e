// PTX fixture for tests/core/ptx_machine_test.cpp: nvcc -ptx -arch=compute_90 -lineinfo -std=c++17 spin_forever.cu -o spin_forever.ptx
// (the #line directives give the student's file and the harness their names, as NVRTC's program does)
#line 1 "spin.cu"
__device__ volatile int flag;
__device__ int wait_for_flag(int v) {
  while (flag == 0) {
  }
  return v;
}
#line 1 "cudasync-harness"
extern "C" __global__ void cudasync_exercise(const int* in, int* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = wait_for_flag(in[t]);
}
