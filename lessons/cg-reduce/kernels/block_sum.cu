// cudasync exercise cg-reduce 6: the sum of a block, in thread 0.
//
// Every thread of a block of 128 (4 warps) calls block_sum with its own v. Return the sum of the
// block's 128 values in thread 0; what the other threads return is not checked. Copy this file,
// write the function, and check it:
//
//   cudasync exercise cg-reduce 6 --starter > block_sum.cu
//   cudasync exercise cg-reduce 6 --kernel block_sum.cu
//
// The tool compiles it at run time (NVRTC), runs it on several grids of blocks of 128, with delays,
// and on the PTX model, and says which blocks are wrong. Every thread calls the function, so a
// __syncthreads() inside it is reached by all.

__device__ int block_sum(int v) {
  // Your code here.
  return v;
}
