// cudasync exercise warp-primitives 10: the sum of a warp, in every lane.
//
// Every lane of a full warp (32 threads, mask 0xffffffff) calls warp_sum with its own v. Return the
// sum of the warp's 32 values, in every lane. Copy this file, write the function, and check it:
//
//   cudasync exercise warp-primitives 10 --starter > warp_sum.cu
//   cudasync exercise warp-primitives 10 --kernel warp_sum.cu
//
// The tool compiles it at run time (NVRTC), runs it on several grids of full warps, with delays,
// and on the PTX model, and says which lanes are wrong. Shuffles are the tool of this lesson; no shared memory is needed.

__device__ int warp_sum(int v) {
  // Your code here: five shuffle steps are enough.
  return v;
}
