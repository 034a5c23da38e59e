// Peer access between two GPUs: what the runtime says about the pair, and switching it on.
#include <mutex>
#include <set>
#include <utility>

#include "core/log.hpp"
#include "techniques/multi_gpu/multi_gpu_cuda.cuh"
#include "techniques/multi_gpu/multi_gpu_gpu.hpp"

namespace cudasync::multi_gpu {

namespace {

std::string name_of(int device) {
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  return p.name;
}

// Enables access from the current device to `peer`; a second call is no error. The pairs enabled
// are remembered (peer access lasts as long as the device's primary context, which this process
// never resets): asking again would make the runtime return cudaErrorPeerAccessAlreadyEnabled, which
// compute-sanitizer counts as an API error in every part after the first.
void enable_from_current(int peer) {
  static std::mutex mutex;
  static std::set<std::pair<int, int>> enabled;
  int current = 0;
  CUDA_CHECK(cudaGetDevice(&current));
  const std::lock_guard<std::mutex> lock(mutex);
  if (enabled.count({current, peer})) return;
  const cudaError_t e = cudaDeviceEnablePeerAccess(peer, 0);
  if (e == cudaErrorPeerAccessAlreadyEnabled) {
    (void)cudaGetLastError();  // enabled by someone else in this process: clear the error it left
  } else {
    CUDA_CHECK(e);
  }
  enabled.insert({current, peer});
}

}  // namespace

PeerInfo gpu_peer_info(int a, int b) {
  PeerInfo p;
  int v = 0;
  CUDA_CHECK(cudaDeviceCanAccessPeer(&v, a, b));
  p.a_to_b = v != 0;
  CUDA_CHECK(cudaDeviceCanAccessPeer(&v, b, a));
  p.b_to_a = v != 0;
  if (p.a_to_b) {
    CUDA_CHECK(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrNativeAtomicSupported, a, b));
    p.native_atomics = v != 0;
    CUDA_CHECK(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrPerformanceRank, a, b));
    p.performance_rank = v;
  }
  p.a_name = name_of(a);
  p.b_name = name_of(b);
  return p;
}

void enable_peer_access(int a, int b) {
  const log::Timed timed("multi-gpu: peer access between GPUs " + std::to_string(a) + " and " + std::to_string(b));
  DeviceGuard keep;
  CUDA_CHECK(cudaSetDevice(a));
  enable_from_current(b);
  CUDA_CHECK(cudaSetDevice(b));
  enable_from_current(a);
}

}  // namespace cudasync::multi_gpu
