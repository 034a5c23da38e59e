// cudasync exercise deadlock-demo 7: two locks, taken by several blocks.
//
// Two counters in global memory, A and B, each guarded by its own spin lock. Thread 0 of every
// block calls two_locks once, with scratch: lock A, lock B, counter A, counter B (all zero at the
// start). It must take both locks, add 1 to both counters, release the locks and return the value
// counter A had before: with g blocks, the blocks' thread 0 return 0, 1, ..., g - 1 in some order,
// each once. Even blocks work from A's side, odd blocks from B's side, so each starts with the
// lock of its own side. The program is complete, and it is wrong. Find out why, fix it, and check
// it:
//
//   cudasync exercise deadlock-demo 7 --starter > two_locks.cu
//   cudasync exercise deadlock-demo 7 --kernel two_locks.cu
//
// The tool compiles it at run time (NVRTC), runs it on several grids with random delays, and on
// the PTX model, which runs the blocks in many orders and says where threads wait for each other.

__device__ int two_locks(int* scratch) {
  int* lock_a = &scratch[0];
  int* lock_b = &scratch[1];
  int* count_a = &scratch[2];
  int* count_b = &scratch[3];
  int* mine = blockIdx.x % 2 == 0 ? lock_a : lock_b;    // the lock of this block's side
  int* other = blockIdx.x % 2 == 0 ? lock_b : lock_a;
  while (atomicCAS(mine, 0, 1) != 0) {
  }
  while (atomicCAS(other, 0, 1) != 0) {
  }
  __threadfence();
  const int ticket = *count_a;
  *count_a = ticket + 1;
  *count_b = *count_b + 1;
  __threadfence();
  atomicExch(other, 0);
  atomicExch(mine, 0);
  return ticket;
}
