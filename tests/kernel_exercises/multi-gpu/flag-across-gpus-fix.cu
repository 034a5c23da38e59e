// The reference answer of cudasync exercise multi-gpu 1, for the tests and the mutation test
// (tests/mutation/mutate.py): never shipped with the tool.
__device__ void send(int* data, volatile int* flag, int v) {
  *data = v;
  __threadfence_system();
  *flag = 1;
}

__device__ int receive(int* data, volatile int* flag) {
  while (*flag == 0) {
  }
  __threadfence_system();
  return *data;
}
