// The tool's kernel for multi-gpu 1: thread t of block 0 sends in[] of thread t of block 1 through
// its own data word and flag; thread t of block 1 returns what it received (its own input, when the
// hand-over is right); block 0 returns its own input.
extern "C" __global__ void cudasync_exercise(const int* in, int* out, int* scratch, const int* delays) {
  const int t = threadIdx.x;
  int* data = scratch + t;
  int* flag = scratch + blockDim.x + t;
  cudasync_pause(delays, 0);
  if (blockIdx.x == 0) {
    send(data, flag, in[blockDim.x + t]);
    out[t] = in[t];
  } else {
    const int got = receive(data, flag);
    out[blockDim.x + t] = got;
  }
  cudasync_pause(delays, 1);
}
