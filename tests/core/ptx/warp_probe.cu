// PTX fixture for tests/core/ptx_gpu_compare_test.cpp: nvcc -ptx -arch=compute_90 -lineinfo -std=c++17 warp_probe.cu -o warp_probe.ptx
// warp_probe.h200.txt holds what an H200 returned for this PTX (loaded with cuModuleLoadData, so the
// GPU ran the same PTX the model runs): the inputs, then every thread's outputs.
// One block of 64 threads (two warps). Each thread writes kOut ints to out[t * kOut ...]:
//   shfl.sync up / down / bfly / idx for 6 lane operands b and 6 clamp/segment words c (value and
//   predicate), vote, match, redux, integer and float arithmetic on in[] values, and the bit
//   instructions prmt, shf, bfe, bfi, bfind.
#define kOut 336

__device__ __forceinline__ void shfl4(int a, int b, int c, int* o) {
  int d, p;
  asm volatile("{\n\t.reg .pred q;\n\tshfl.sync.up.b32 %0|q, %2, %3, %4, -1;\n\tselp.u32 %1, 1, 0, q;\n\t}"
               : "=r"(d), "=r"(p) : "r"(a), "r"(b), "r"(c));
  o[0] = d;
  o[1] = p;
  asm volatile("{\n\t.reg .pred q;\n\tshfl.sync.down.b32 %0|q, %2, %3, %4, -1;\n\tselp.u32 %1, 1, 0, q;\n\t}"
               : "=r"(d), "=r"(p) : "r"(a), "r"(b), "r"(c));
  o[2] = d;
  o[3] = p;
  asm volatile("{ .reg .pred q; shfl.sync.bfly.b32 %0|q, %2, %3, %4, -1; selp.u32 %1, 1, 0, q; }"
               : "=r"(d), "=r"(p) : "r"(a), "r"(b), "r"(c));
  o[4] = d;
  o[5] = p;
  asm volatile("{\n\t.reg .pred q;\n\tshfl.sync.idx.b32 %0|q, %2, %3, %4, -1;\n\tselp.u32 %1, 1, 0, q;\n\t}"
               : "=r"(d), "=r"(p) : "r"(a), "r"(b), "r"(c));
  o[6] = d;
  o[7] = p;
}

extern "C" __global__ void probe(const int* in, int* out) {
  const int t = threadIdx.x;
  int* o = out + t * kOut;
  const int a = in[64 + t];
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) shfl4(a, in[i], in[6 + j], o + (i * 6 + j) * 8);
  int k = 288;
  const unsigned m = 0xffffffffu;
  o[k++] = __ballot_sync(m, a % 3 == 0);
  o[k++] = __any_sync(m, a % 7 == 0);
  o[k++] = __all_sync(m, a > -1000000);
  o[k++] = __match_any_sync(m, a % 5);
  o[k++] = __reduce_add_sync(m, static_cast<unsigned>(a));
  o[k++] = __reduce_min_sync(m, a);
  o[k++] = __reduce_max_sync(m, a);
  o[k++] = __shfl_up_sync(m, a, 3, 16);
  o[k++] = __shfl_down_sync(m, a, 5, 8);
  o[k++] = __shfl_sync(m, a, 35, 16);
  o[k++] = __shfl_xor_sync(m, a, 9, 16);
  const int x = in[128 + t], y = in[192 + t] | 1;
  o[k++] = x / y;
  o[k++] = x % y;
  o[k++] = x >> 3;
  o[k++] = static_cast<int>(static_cast<unsigned>(x) >> 3);
  o[k++] = __mulhi(x, y);
  o[k++] = static_cast<int>(__umulhi(static_cast<unsigned>(x), static_cast<unsigned>(y)));
  const float f = static_cast<float>(x) * 0.37f;
  o[k++] = static_cast<int>(f);
  o[k++] = __float2int_rn(f);
  o[k++] = __float2int_rd(f);
  o[k++] = __float2int_ru(f);
  o[k++] = static_cast<int>(fmaf(f, 1.5f, -2.25f));
  o[k++] = min(x, y) + max(x, y) + abs(x);
  o[k++] = static_cast<int>(static_cast<signed char>(x)) + static_cast<int>(static_cast<unsigned short>(y));
  o[k++] = __popc(x) * 100 + __clz(y);
  o[k++] = static_cast<int>(__brev(static_cast<unsigned>(x)));
  o[k++] = static_cast<int>(static_cast<long long>(x) * y >> 20);
  unsigned r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(static_cast<unsigned>(t) * 0x9e3779b9u));
  o[k++] = static_cast<int>(r);
  o[k++] = static_cast<int>(__funnelshift_l(static_cast<unsigned>(x), static_cast<unsigned>(y), static_cast<unsigned>(t)));
  o[k++] = static_cast<int>(__funnelshift_rc(static_cast<unsigned>(x), static_cast<unsigned>(y), static_cast<unsigned>(t)));
  int sr;
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(sr) : "r"(x), "r"(t % 32), "r"((t * 7) % 33));
  o[k++] = sr;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(t % 32), "r"((t * 7) % 33));
  o[k++] = static_cast<int>(r);
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(x), "r"(y), "r"(t % 32), "r"((t * 5) % 33));
  o[k++] = static_cast<int>(r);
  asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(x >> (t % 32)));
  o[k++] = static_cast<int>(r);
  asm("bfind.s32 %0, %1;" : "=r"(r) : "r"(x >> (t % 32)));
  o[k++] = static_cast<int>(r);
  asm("bfind.shiftamt.u32 %0, %1;" : "=r"(r) : "r"(y));
  o[k++] = static_cast<int>(r);
  while (k < kOut) o[k++] = -7;
}
