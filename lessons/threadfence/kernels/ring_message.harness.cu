// The tool's kernel for threadfence 9: block b sends to block (b + 1) % gridDim.x and receives from
// the block before it. The word thread i sends is the input of thread i of the next block, so a
// receiver that gets what was sent returns its own input (every thread is judged). scratch: the
// flags of the blocks (words 0-63), then one box of blockDim.x words per block (from word 64).
extern "C" __global__ void cudasync_exercise(const int* in, int* out, int* scratch, const int* delays) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int next = (blockIdx.x + 1) % gridDim.x;
  int* flags = scratch;
  int* boxes = scratch + 64;
  const int value = in[next * blockDim.x + threadIdx.x];
  cudasync_pause(delays, 0);
  send(boxes + next * blockDim.x, flags + next, value);
  const int r = receive(boxes + blockIdx.x * blockDim.x, flags + blockIdx.x);
  cudasync_pause(delays, 1);
  out[t] = r;
}
