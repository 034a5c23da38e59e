// Reference solution of deadlock-demo 7 (lock-order-fix), for the mutation test only: it is never
// shipped. Each sync construct stands on its own line, spelled plainly.

__device__ int two_locks(int* scratch) {
  int* lock_a = &scratch[0];
  int* lock_b = &scratch[1];
  int* count_a = &scratch[2];
  int* count_b = &scratch[3];
  while (atomicCAS(lock_a, 0, 1) != 0) {
  }
  while (atomicCAS(lock_b, 0, 1) != 0) {
  }
  __threadfence();
  const int ticket = *count_a;
  *count_a = ticket + 1;
  *count_b = *count_b + 1;
  __threadfence();
  atomicExch(lock_b, 0);
  atomicExch(lock_a, 0);
  return ticket;
}
