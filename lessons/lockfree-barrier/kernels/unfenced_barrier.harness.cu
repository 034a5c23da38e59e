// The tool's kernel for lockfree-barrier 6 (as 5's): every thread writes its input, and the grid hands
// it on twice, one block each time, through one array, with a grid barrier after every write and
// read (scratch[0] counts the arrivals: goal k x blocks for the k-th barrier). Right, thread t
// returns the input of thread t + 2 x blockDim.x (mod the grid).
extern "C" __global__ void cudasync_exercise(const int* in, int* out, int* scratch, const int* delays) {
  const int n = static_cast<int>(gridDim.x * blockDim.x);
  const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int next = (t + static_cast<int>(blockDim.x)) % n;
  unsigned int* arrived = reinterpret_cast<unsigned int*>(scratch);
  int* data = scratch + 32;
  cudasync_pause(delays, 0);
  data[t] = in[t];
  grid_barrier(arrived, gridDim.x);
  const int x = data[next];
  grid_barrier(arrived, 2 * gridDim.x);
  data[t] = x;
  grid_barrier(arrived, 3 * gridDim.x);
  const int r = data[next];
  cudasync_pause(delays, 1);
  out[t] = r;
}
