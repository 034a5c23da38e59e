// Reference solution of named-barriers 6 (group-sums-own-barrier), for the mutation test only:
// it is never shipped. Each sync construct stands on its own line, spelled plainly.

__device__ int group_sum(int v, int* buf) {
  const int t = threadIdx.x;
  const int first = t - t % 64;
  const unsigned id = 1 + t / 64;
  buf[t] = v;
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(64) : "memory");
  for (int s = 32; s > 0; s >>= 1) {
    if (t - first < s) buf[t] += buf[t + s];
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(64) : "memory");
  }
  return buf[first];
}
