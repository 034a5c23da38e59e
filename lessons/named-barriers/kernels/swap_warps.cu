// cudasync exercise named-barriers 5: two warps swap their values with bar.arrive and bar.sync.
//
// A block has two warps, 64 threads. Every thread calls swap_warps with its own v, and lane l of
// each warp must return the v of lane l of the other warp. Each warp is the producer of its own
// slot and the consumer of the other's, as in the PTX ISA's producer/consumer: it writes its values
// to its slot and says so with bar.arrive on its own barrier (warp 0 on barrier 1, warp 1 on
// barrier 2), without waiting; then it waits with bar.sync on the other warp's barrier and reads
// the other slot. The program is complete, and it is wrong. Find out why, fix it, and check it:
//
//   cudasync exercise named-barriers 5 --starter > swap_warps.cu
//   cudasync exercise named-barriers 5 --kernel swap_warps.cu
//
// The tool compiles it at run time (NVRTC), runs it on several grids with random delays, and on
// the PTX model, which runs the warps in many orders and says where a warp waits forever.

__device__ int swap_warps(int v) {
  __shared__ int slot[2][32];  // slot[w]: the values warp w sends
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned mine = 1 + warp, theirs = 2 - warp;  // barrier 1 + w: "slot[w] is full"
  slot[warp][lane] = v;
  asm volatile("bar.arrive %0, %1;" ::"r"(mine), "r"(32) : "memory");
  asm volatile("bar.sync %0, %1;" ::"r"(theirs), "r"(64) : "memory");
  return slot[1 - warp][lane];
}
