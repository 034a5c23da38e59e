// The reference answer of cudasync exercise warp-primitives 10, for the tests and the mutation test
// (tests/mutation/mutate.py): never shipped with the tool.
__device__ int warp_sum(int v) {
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_xor_sync(0xffffffff, v, offset);
  return v;
}
