// cudasync exercise lock 7: a spin lock around a counter, taken once by every block.
//
// Thread 0 of every block calls lock(mutex), reads a counter with an ordinary load, returns it as
// its ticket, stores the counter + 1 with an ordinary store, and calls unlock(mutex). *mutex and
// the counter are 0 at the start. With g blocks, the blocks' thread 0 must return 0, 1, ..., g - 1
// in some order, each once: every block must see the counter as the block before it left it.
// The program is complete, and it is wrong. Find out why, fix it, and check it:
//
//   cudasync exercise lock 7 --starter > stale_unlock.cu
//   cudasync exercise lock 7 --kernel stale_unlock.cu
//
// The tool compiles it at run time (NVRTC), runs it on several grids with random delays, and on
// the PTX model, which runs the blocks in many orders and names every data race it finds.

__device__ void lock(int* mutex) {
  while (atomicCAS(mutex, 0, 1) != 0) {
  }
  __threadfence();
}

__device__ void unlock(int* mutex) {
  *(volatile int*)mutex = 0;
}
