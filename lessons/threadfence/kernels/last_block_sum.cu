// cudasync exercise threadfence 8: the grid's sum, added up by the block that finishes last.
//
// Every thread of every block calls grid_sum once, with its block's sum (the same value in every
// thread of a block). Store each block's sum in partials[blockIdx.x]; then each block takes a
// ticket from *count (zero at the start); the block that takes the last ticket (gridDim.x - 1) adds
// up the gridDim.x partials and stores the grid's sum in *total. No block waits for another. After
// the launch the tool reads *total: it must be the sum of the inputs of the whole grid. Copy this
// file, write the function, and check it:
//
//   cudasync exercise threadfence 8 --starter > last_block_sum.cu
//   cudasync exercise threadfence 8 --kernel last_block_sum.cu
//
// The tool compiles it at run time (NVRTC), runs it on several grids with random delays, and on
// the PTX model, which runs the blocks in many orders and names every data race it finds. Every
// thread calls the function, so a __syncthreads() inside it is reached by all.

__device__ void grid_sum(int block_sum, int* partials, unsigned* count, int* total) {
  // Your code here.
}
