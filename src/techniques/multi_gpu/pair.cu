// The pair of GPUs: what the runtime says about it, switching peer access on, and NCCL for the pair
// driven from one thread: the communicators (ncclCommInitAll), an all-reduce of one integer used as
// a barrier, and the all-reduce of a large array. NCCL is built only where CMake found nccl.h
// (cmake/nccl.cmake), and loaded at run time; elsewhere, or where the library does not load, every
// NCCL entry throws WaivedError with the reason. NCCL_NVLS_ENABLE=0 (NVLink SHARP, which uses NVLink
// multicast, stays off) is set by the lesson before the first NCCL call, so that every child
// process inherits it too.
#include <mutex>
#include <set>
#include <utility>

#include "core/errors.hpp"
#include "core/log.hpp"
#include "core/words/words.hpp"
#include "techniques/multi_gpu/pair.cuh"

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

#if CUDASYNC_HAVE_NCCL
#include <dlfcn.h>
#include <nccl.h>

#include <cstdlib>
#include <string>

#include "core/version.hpp"

namespace cudasync::multi_gpu {

namespace {

// NCCL's entry points, loaded once with dlopen (the binary does not link NCCL: it needs only the C++
// runtime): libnccl.so.<major> through the loader's search path, else the file CMake found. Never
// closed: NCCL's own threads may outlive a close.
struct Nccl {
  decltype(&ncclGetVersion) get_version = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
  decltype(&ncclCommInitAll) init_all = nullptr;
  decltype(&ncclCommDestroy) destroy = nullptr;
  decltype(&ncclGroupStart) group_start = nullptr;
  decltype(&ncclGroupEnd) group_end = nullptr;
  decltype(&ncclAllReduce) all_reduce = nullptr;
  std::string error;  // why it could not be loaded ("" when it was)
};

template <typename F>
void bind(void* lib, const char* name, F& f, std::string& error) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f && error.empty()) error = words::say("multi-gpu", "nccl.missing-entry", {{"name", name}});
}

const Nccl& nccl() {
  static const Nccl loaded = [] {
    Nccl n;
    void* lib = nullptr;
    std::string tried;
    for (const char* name : {kNcclSoname, kNcclLibrary}) {
      if (!*name) continue;
      if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
      const char* why = dlerror();
      tried += (tried.empty() ? "" : "; ") + std::string(why ? why : name);
    }
    if (!lib) {
      n.error = words::say("multi-gpu", "nccl.not-loaded", {{"tried", tried}});
      return n;
    }
    bind(lib, "ncclGetVersion", n.get_version, n.error);
    bind(lib, "ncclGetErrorString", n.error_string, n.error);
    bind(lib, "ncclCommInitAll", n.init_all, n.error);
    bind(lib, "ncclCommDestroy", n.destroy, n.error);
    bind(lib, "ncclGroupStart", n.group_start, n.error);
    bind(lib, "ncclGroupEnd", n.group_end, n.error);
    bind(lib, "ncclAllReduce", n.all_reduce, n.error);
    return n;
  }();
  return loaded;
}

// The loaded library, or WaivedError with the reason it is not there.
const Nccl& nccl_or_waive() {
  const Nccl& n = nccl();
  if (!n.error.empty()) throw WaivedError(n.error);
  return n;
}

#define NCCL_CHECK(call)                                                                                     \
  do {                                                                                                       \
    const ncclResult_t r_ = (call);                                                                          \
    if (r_ != ncclSuccess)                                                                                   \
      throw Error(ExitCode::no_gpu, "nccl", std::string(#call) + " failed: " + nccl().error_string(r_));   \
  } while (0)

}  // namespace

struct NcclComms {
  int devices[kGpus] = {0, 1};
  ncclComm_t comm[kGpus] = {nullptr, nullptr};
  int* one[kGpus] = {nullptr, nullptr};  // the barrier's integer on each GPU
  ~NcclComms() {
    const log::Timed timed("multi-gpu: NCCL communicators closed");
    for (int g = 0; g < kGpus; ++g) {
      if (comm[g]) nccl().destroy(comm[g]);
      if (one[g]) {
        CUDA_CHECK_NOTHROW(cudaSetDevice(devices[g]));
        CUDA_CHECK_NOTHROW(cudaFree(one[g]));
      }
    }
  }
};

std::shared_ptr<NcclComms> gpu_nccl_open(int a, int b) {
  const log::Timed timed("multi-gpu: NCCL communicators for GPUs " + std::to_string(a) + " and " + std::to_string(b));
  const Nccl& n = nccl_or_waive();
  DeviceGuard keep;
  if (const char* nvls = std::getenv("NCCL_NVLS_ENABLE"); !nvls || std::string(nvls) != "0")
    setenv("NCCL_NVLS_ENABLE", "0", 1);  // the lesson sets it first; this is the last line of defence
  auto c = std::make_shared<NcclComms>();
  c->devices[0] = a;
  c->devices[1] = b;
  NCCL_CHECK(n.init_all(c->comm, kGpus, c->devices));
  for (int g = 0; g < kGpus; ++g) {
    CUDA_CHECK(cudaSetDevice(c->devices[g]));
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&c->one[g]), sizeof(int)));
    CUDA_CHECK(cudaMemset(c->one[g], 0, sizeof(int)));
  }
  return c;
}

int gpu_nccl_version() {
  int v = 0;
  NCCL_CHECK(nccl_or_waive().get_version(&v));
  return v;
}

void nccl_barrier(NcclComms& c, const cudaStream_t streams[kGpus]) {
  const Nccl& n = nccl();
  NCCL_CHECK(n.group_start());
  for (int g = 0; g < kGpus; ++g)
    NCCL_CHECK(n.all_reduce(c.one[g], c.one[g], 1, ncclInt32, ncclSum, c.comm[g], streams[g]));
  NCCL_CHECK(n.group_end());
}

void nccl_all_reduce(NcclComms& c, const std::uint32_t* const in[kGpus], std::uint32_t* const out[kGpus],
                     std::size_t elements, const cudaStream_t streams[kGpus]) {
  const Nccl& n = nccl();
  NCCL_CHECK(n.group_start());
  for (int g = 0; g < kGpus; ++g)
    NCCL_CHECK(n.all_reduce(in[g], out[g], elements, ncclUint32, ncclSum, c.comm[g], streams[g]));
  NCCL_CHECK(n.group_end());
}

}  // namespace cudasync::multi_gpu

#else  // no NCCL in this build

namespace cudasync::multi_gpu {

namespace {
[[noreturn]] void not_built_in() {
  throw WaivedError(words::say("multi-gpu", "nccl.not-built-in"));
}
}  // namespace

struct NcclComms {};
std::shared_ptr<NcclComms> gpu_nccl_open(int, int) { not_built_in(); }
int gpu_nccl_version() { not_built_in(); }
void nccl_barrier(NcclComms&, const cudaStream_t*) { not_built_in(); }
void nccl_all_reduce(NcclComms&, const std::uint32_t* const*, std::uint32_t* const*, std::size_t, const cudaStream_t*) {
  not_built_in();
}

}  // namespace cudasync::multi_gpu

#endif
