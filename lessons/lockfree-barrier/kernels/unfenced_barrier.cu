// cudasync exercise lockfree-barrier 6: a grid barrier copied from a forum post.
//
// Every thread of every block calls grid_barrier(arrived, goal) three times; *arrived starts at 0
// and the k-th call's goal is k x the number of blocks. It should return only when every block has
// called it, with every write made before the barrier visible after it. It never hangs, and often
// the values even arrive: it is still wrong. Find why, fix it, and check it:
//
//   cudasync exercise lockfree-barrier 6 --starter > unfenced_barrier.cu
//   cudasync exercise lockfree-barrier 6 --kernel unfenced_barrier.cu

__device__ void grid_barrier(unsigned int* arrived, unsigned int goal) {
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(arrived, 1u);
    while (*(volatile unsigned int*)arrived < goal) {
    }
  }
  __syncthreads();
}
