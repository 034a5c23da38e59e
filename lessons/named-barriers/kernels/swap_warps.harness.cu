// The tool's kernel for named-barriers 5: both warps of every block of 64 call swap_warps with
// their inputs, between the checker's delays, and store what it returned (every thread's is
// judged: lane l of one warp against the input of lane l of the other).
extern "C" __global__ void cudasync_exercise(const int* in, int* out, int* scratch, const int* delays) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[t];
  cudasync_pause(delays, 0);
  const int r = swap_warps(v);
  cudasync_pause(delays, 1);
  out[t] = r;
}
