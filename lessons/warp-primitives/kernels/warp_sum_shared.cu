// cudasync exercise warp-primitives 12: a warp sum through shared memory, in every lane.
//
// Every lane of every full warp calls warp_sum_shared with its own v; it must return the sum of
// its warp's 32 values, in every lane. This version goes through shared memory, the way reductions
// were written before independent thread scheduling: it is complete, and it is wrong. Find out
// why, fix it (keep shared memory, or replace it), and check it:
//
//   cudasync exercise warp-primitives 12 --starter > warp_sum_shared.cu
//   cudasync exercise warp-primitives 12 --kernel warp_sum_shared.cu
//
// The tool compiles it at run time (NVRTC), runs it on several grids with random delays, and on
// the PTX model, which runs the lanes of a warp in many orders and names every data race it finds.

__device__ int warp_sum_shared(int v) {
  __shared__ int s[1024];                   // one word per thread of the block
  const int lane = threadIdx.x % 32;
  int* w = s + (threadIdx.x - lane);        // this warp's 32 words
  w[lane] = v;
  for (int offset = 16; offset > 0; offset >>= 1) {
    if (lane < offset) w[lane] += w[lane + offset];
  }
  return w[0];                              // the warp's sum, read by every lane
}
