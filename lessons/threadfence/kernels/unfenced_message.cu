// cudasync exercise threadfence 7: a message from one block to another, behind a flag.
//
// The blocks work in pairs, 0 with 1, 2 with 3, and so on; each block sends one message to its
// partner and receives one from it. To send, every thread of the block calls send: it writes its
// word of the partner's box, and then thread 0 raises the partner's flag. To receive, every thread
// calls receive: thread 0 waits until its own flag is up, and then every thread returns its word of
// its own box. The tool fills the boxes so that a right program returns every thread's own input.
// The program is complete, and it is wrong. Find out why, fix it, and check it:
//
//   cudasync exercise threadfence 7 --starter > unfenced_message.cu
//   cudasync exercise threadfence 7 --kernel unfenced_message.cu
//
// The tool compiles it at run time (NVRTC), runs it on several grids with random delays, and on
// the PTX model, which says which accesses race: which read may see a value other than the one the
// program meant it to see.

// Every thread of the sending block: value into box[threadIdx.x], then the flag (thread 0).
__device__ void send(int* box, int* flag, int value) {
  box[threadIdx.x] = value;
  __syncthreads();
  if (threadIdx.x == 0) {
    *(volatile int*)flag = 1;
  }
}

// Every thread of the receiving block: wait for the flag (thread 0), then return box[threadIdx.x].
__device__ int receive(const int* box, const int* flag) {
  if (threadIdx.x == 0) {
    while (*(const volatile int*)flag == 0) {
    }
  }
  __syncthreads();
  return box[threadIdx.x];
}
