// Reference solution of lock 6 (lock-unlock-kernel), for the mutation test only: it is never
// shipped. Each sync construct stands on its own line, spelled plainly.

__device__ void lock(int* mutex) {
  while (atomicCAS(mutex, 0, 1) != 0) {
  }
  __threadfence();
}

__device__ void unlock(int* mutex) {
  __threadfence();
  atomicExch(mutex, 0);
}
