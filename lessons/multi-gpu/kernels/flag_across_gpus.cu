// cudasync exercise multi-gpu 1: hand data to a thread on another GPU.
//
// Block 0 runs on one GPU and block 1 on another (on a machine with one GPU, the tool's PTX model
// places them so; the GPU runs both). Thread t of block 0 calls send() with a value for thread t of
// block 1, which calls receive() and must return that value. This program compiles, and a run may
// even return the right values: it is still wrong. Find why, fix it, and check it:
//
//   cudasync exercise multi-gpu 1 --starter > flag_across_gpus.cu
//   cudasync exercise multi-gpu 1 --kernel flag_across_gpus.cu

__device__ void send(int* data, volatile int* flag, int v) {
  *data = v;
  __threadfence();
  *flag = 1;
}

__device__ int receive(int* data, volatile int* flag) {
  while (*flag == 0) {
  }
  __threadfence();
  return *data;
}
