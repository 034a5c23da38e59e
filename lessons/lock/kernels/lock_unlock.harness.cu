// The tool's kernel for lock 6 and 7: thread 0 of every block takes the lock, reads the counter
// with an ordinary load, stores the counter + 1 with an ordinary store, gives the lock back, and
// returns what it read (thread 0's values are judged: 0 to grid - 1, each once). The other threads
// return 0. scratch: word 0 the mutex, word 32 the counter (another 128-byte line).
extern "C" __global__ void cudasync_exercise(const int* in, int* out, int* scratch, const int* delays) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  int* mutex = scratch;
  int* counter = scratch + 32;
  cudasync_pause(delays, 0);
  int r = 0;
  if (threadIdx.x == 0) {
    lock(mutex);
    r = *counter;
    *counter = r + 1;
    unlock(mutex);
  }
  cudasync_pause(delays, 1);
  out[t] = r;
}
