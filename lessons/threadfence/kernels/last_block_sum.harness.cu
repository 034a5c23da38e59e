// The tool's kernel for threadfence 8: every thread of every block calls grid_sum with its block's
// sum, between the checker's delays. Then the tool's own check, which starts only after grid_sum has
// returned in every thread of the block: thread 0 of every block waits until every block has
// returned (a grid barrier of the tool's, with its fences) and returns *total, so that every
// block's thread 0 is judged against the grid's sum. scratch: word 0 *total, word 1 the student's
// ticket counter, word 2 the tool's counter, from word 8 the partials.
extern "C" __global__ void cudasync_exercise(const int* in, int* out, int* scratch, const int* delays) {
  __shared__ int block_sum;
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  int* total = scratch;
  unsigned* count = reinterpret_cast<unsigned*>(scratch + 1);
  unsigned* returned = reinterpret_cast<unsigned*>(scratch + 2);
  int* partials = scratch + 8;
  if (threadIdx.x == 0) block_sum = 0;
  __syncthreads();
  atomicAdd(&block_sum, in[t]);
  __syncthreads();
  const int mine = block_sum;
  cudasync_pause(delays, 0);
  grid_sum(mine, partials, count, total);
  cudasync_pause(delays, 1);
  __syncthreads();
  int r = 0;
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(returned, 1u);
    while (*(volatile unsigned*)returned < gridDim.x) {
    }
    __threadfence();
    r = *(volatile int*)total;
  }
  out[t] = r;
}
