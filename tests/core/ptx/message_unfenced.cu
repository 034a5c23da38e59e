// PTX fixture for tests/core/ptx_machine_test.cpp: nvcc -ptx -arch=compute_90 -lineinfo -std=c++17 message_unfenced.cu -o message_unfenced.ptx
// (the #line directives give the student's file and the harness their names, as NVRTC's program does)
#line 1 "message.cu"
// Block 0 publishes data then a flag; block 1 waits for the flag and reads the data.
__device__ void send(int* data, volatile int* flag, int v) {
  *data = v;
  
  *flag = 1;
}
__device__ int receive(int* data, volatile int* flag) {
  while (*flag == 0) {
  }
  
  return *data;
}
#line 1 "cudasync-harness"
extern "C" __global__ void message(int* data, volatile int* flag, int* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) send(data, flag, 42);
  else out[0] = receive(data, flag);
}
