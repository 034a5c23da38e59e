// The tool's kernel for deadlock-demo 7: thread 0 of every block calls two_locks with the scratch
// words (lock A, lock B, counter A, counter B), between the checker's delays, and stores what it
// returned (thread 0's values are judged: 0 to grid - 1, each once). The other threads return 0.
extern "C" __global__ void cudasync_exercise(const int* in, int* out, int* scratch, const int* delays) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  cudasync_pause(delays, 0);
  const int r = threadIdx.x == 0 ? two_locks(scratch) : 0;
  cudasync_pause(delays, 1);
  out[t] = r;
}
