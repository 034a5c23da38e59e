// cudasync exercise lock 6: a spin lock in one word of global memory.
//
// Thread 0 of every block calls lock(mutex), reads a counter with an ordinary load, returns it as
// its ticket, stores the counter + 1 with an ordinary store, and calls unlock(mutex). *mutex and
// the counter are 0 at the start. With g blocks, the blocks' thread 0 must return 0, 1, ..., g - 1
// in some order, each once: every block must see the counter as the block before it left it.
// Copy this file, write the two functions, and check them:
//
//   cudasync exercise lock 6 --starter > lock_unlock.cu
//   cudasync exercise lock 6 --kernel lock_unlock.cu
//
// The tool compiles it at run time (NVRTC), runs it on several grids with random delays, and on
// the PTX model, which runs the blocks in many orders and names every data race it finds.

__device__ void lock(int* mutex) {
  // Your code here: return only when this thread holds the lock.
}

__device__ void unlock(int* mutex) {
  // Your code here: give the lock back.
}
