// The tool's kernel for warp-primitives 12: every lane of every warp calls warp_sum_shared with its
// input, between the checker's delays, and stores what it returned (every lane's is judged).
extern "C" __global__ void cudasync_exercise(const int* in, int* out, int* scratch, const int* delays) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[t];
  cudasync_pause(delays, 0);
  const int r = warp_sum_shared(v);
  cudasync_pause(delays, 1);
  out[t] = r;
}
