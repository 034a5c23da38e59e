// The tool's kernel for cg-reduce 6: every thread of every block calls block_sum with its input,
// between the checker's delays, and stores what it returned (thread 0's is judged).
extern "C" __global__ void cudasync_exercise(const int* in, int* out, int* scratch, const int* delays) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[t];
  cudasync_pause(delays, 0);
  const int r = block_sum(v);
  cudasync_pause(delays, 1);
  out[t] = r;
}
