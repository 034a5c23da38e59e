// The tool's kernel for deadlock-demo 6: every thread of every block calls tree_sum with its input
// and the block's shared buffer, between the checker's delays, and stores what it returned (thread
// 0's is judged against its block's sum).
extern "C" __global__ void cudasync_exercise(const int* in, int* out, int* scratch, const int* delays) {
  __shared__ int buf[1024];
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[t];
  cudasync_pause(delays, 0);
  const int r = tree_sum(v, buf);
  cudasync_pause(delays, 1);
  out[t] = r;
}
