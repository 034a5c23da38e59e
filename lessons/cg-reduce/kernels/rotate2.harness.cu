// The tool's kernel for cg-reduce 7: every thread of every block calls rotate2 with its input and
// the block's shared buffer, between the checker's delays, and stores what it returned (every
// thread's is judged).
extern "C" __global__ void cudasync_exercise(const int* in, int* out, int* scratch, const int* delays) {
  __shared__ int buf[1024];
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[t];
  cudasync_pause(delays, 0);
  const int r = rotate2(v, buf);
  cudasync_pause(delays, 1);
  out[t] = r;
}
