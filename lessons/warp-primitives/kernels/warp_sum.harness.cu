// The tool's kernel for warp-primitives 10: every lane of every warp calls warp_sum with its input,
// between the checker's delays, and stores what it returned.
extern "C" __global__ void cudasync_exercise(const int* in, int* out, int* scratch, const int* delays) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[t];
  cudasync_pause(delays, 0);
  const int r = warp_sum(v);
  cudasync_pause(delays, 1);
  out[t] = r;
}
