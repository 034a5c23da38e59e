// cudasync exercise cg-reduce 7: pass a value two places on, one place at a time.
//
// Every thread of a block calls rotate2 with its own v and buf, a __shared__ array of the block
// with one word per thread. Thread t must return the v of thread (t + 2) % blockDim.x of the same
// block. Do it in two steps of one place each, through buf alone: every thread puts its value in
// buf[t] and takes the value of the next thread, then does the same again with what it took.
// Blocks have up to 1024 threads, not always a multiple of 32. Copy this file, write the
// function, and check it:
//
//   cudasync exercise cg-reduce 7 --starter > rotate2.cu
//   cudasync exercise cg-reduce 7 --kernel rotate2.cu
//
// The tool compiles it at run time (NVRTC), runs it on several grids with random delays, and on
// the PTX model, which runs the threads in many orders and names every data race it finds.

__device__ int rotate2(int v, int* buf) {
  // Your code here: two steps of one place, through buf.
  return v;
}
