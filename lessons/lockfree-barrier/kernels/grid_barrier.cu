// cudasync exercise lockfree-barrier 5: a grid barrier of your own.
//
// Every thread of every block calls grid_barrier(arrived, goal) three times; *arrived starts at 0
// and the k-th call's goal is k x the number of blocks. Return only when every block of the grid
// has called it this time, and make every write any thread of the grid made before its call
// visible to every thread after the barrier. All the blocks are resident at once. Check it:
//
//   cudasync exercise lockfree-barrier 5 --starter > grid_barrier.cu
//   cudasync exercise lockfree-barrier 5 --kernel grid_barrier.cu
//
// The tool hands values from block to block between the barriers and checks what arrives.

__device__ void grid_barrier(unsigned int* arrived, unsigned int goal) {
  // Your code here.
}
