// cudasync exercise named-barriers 6: sums of groups of 64 threads, each on its own barrier.
//
// A block of 128, 192 or 256 threads is cut into groups of 64 consecutive threads (two warps
// each): threads 0-63 are group 0, 64-127 group 1, and so on. Every thread calls group_sum with
// its own v and buf, a __shared__ array of the block with one word per thread, and must return the
// sum of the 64 values of its own group. A group must not wait for another group: synchronize
// each group with its own named barrier (inline PTX bar.sync with an id and a thread count, as in
// this lesson), not with __syncthreads(). Copy this file, write the function, and check it:
//
//   cudasync exercise named-barriers 6 --starter > group_sum.cu
//   cudasync exercise named-barriers 6 --kernel group_sum.cu
//
// The tool compiles it at run time (NVRTC), runs it on several grids with random delays, and on
// the PTX model, which runs the warps in many orders and names every data race it finds.

__device__ int group_sum(int v, int* buf) {
  // Your code here. A named barrier, for example:
  //   asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
  return v;
}
