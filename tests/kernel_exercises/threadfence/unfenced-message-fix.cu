// Reference solution of threadfence 7 (unfenced-message-fix), for the mutation test only: it is
// never shipped. Each sync construct stands on its own line, spelled plainly.

__device__ void send(int* box, int* flag, int value) {
  box[threadIdx.x] = value;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    *(volatile int*)flag = 1;
  }
}

__device__ int receive(const int* box, const int* flag) {
  if (threadIdx.x == 0) {
    while (*(const volatile int*)flag == 0) {
    }
    __threadfence();
  }
  __syncthreads();
  return box[threadIdx.x];
}
