// cudasync exercise deadlock-demo 6: a block's sum, by a tree in shared memory, in thread 0.
//
// Every thread of a block (32 to 256 threads, a power of two) calls tree_sum with its own v and
// buf, a __shared__ array of the block with one word per thread. Thread 0 must return the sum of
// the block's values; what the other threads return is not checked. Each step of the tree halves
// the number of words still to be added: the lower half adds the upper half's words to its own.
// The program is complete, and it is wrong. Find out why, fix it, and check it:
//
//   cudasync exercise deadlock-demo 6 --starter > tree_sum.cu
//   cudasync exercise deadlock-demo 6 --kernel tree_sum.cu
//
// The tool compiles it at run time (NVRTC), runs it on several grids with random delays, and on
// the PTX model, which says where threads wait for each other and which accesses race.

__device__ int tree_sum(int v, int* buf) {
  const int t = threadIdx.x;
  buf[t] = v;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (t < half) {
      buf[t] += buf[t + half];
      __syncthreads();
    }
  }
  return buf[t];  // in thread 0: the block's sum
}
