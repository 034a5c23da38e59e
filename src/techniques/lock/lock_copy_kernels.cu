// Part 5: the blog's lock class passed to a kernel by value, its fixes 1 and 3, and an owner whose
// copy is deleted (its fix 2 is part 6, lock_shared_mutex_kernels.cu). The classes are written as
// the blog writes them (cudaMalloc in the constructor,
// cudaFree in the destructor), with one addition: every cudaFree they make is logged, so the
// report can say how many times a destructor ran and what CUDA answered.
//
// What happens (CUDA C++ Programming Guide, "__global__ Function Argument Processing"): the launch
// statement copies a by-value argument into compiler-generated stub functions, one or more times,
// and memcpy's its bytes into the kernel's parameter memory. The copies are destroyed on the host
// when the stubs return, possibly before the kernel has finished. The blog's destructor frees the
// mutex each time. Nothing runs on the device at kernel exit.
#include <cuda_runtime.h>

#include <cstdio>
#include <memory>
#include <string>
#include <type_traits>

#include "core/cuda/check.hpp"
#include "core/cuda/deadline.cuh"
#include "techniques/lock/lock_copy_device.cuh"
#include "techniques/lock/lock_gpu.hpp"

namespace cudasync::lock {

using cuda::SpinDeadline;
using cuda::spin_until;

namespace {

// What the classes' destructors and deleters did.
struct FreeLog {
  int destructor_calls = 0;
  int frees_ok = 0;
  int frees_failed = 0;
  int copies = 0;
  std::string results;  // "cudaSuccess, cudaErrorInvalidValue"
  std::string last;
  void free(int* p) {
    const cudaError_t e = cudaFree(p);
    (e == cudaSuccess ? frees_ok : frees_failed) += 1;
    last = cudaGetErrorName(e);
    results += (results.empty() ? "" : ", ") + last;
  }
};
FreeLog* g_log = nullptr;  // the log of the run in progress (host code, one thread)

// ---- the blog's class, as written (plus the log) ---------------------------------------------
class CudaKernelLock {
 public:
  int* mutex = nullptr;
  CudaKernelLock() {
    int state = 0;
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&mutex), sizeof(int)));
    CUDA_CHECK(cudaMemcpy(mutex, &state, sizeof(int), cudaMemcpyHostToDevice));
  }
  ~CudaKernelLock() {
    ++g_log->destructor_calls;
    g_log->free(mutex);
  }
  __device__ bool lock(const SpinDeadline& d) { return spin_until([&] { return atomicCAS(mutex, 0, 1) == 0; }, d); }
  __device__ void unlock() { atomicExch(mutex, 0); }
};

// ---- the blog's fix 3: shared_ptr owns the mutex, cudaFree is its deleter -----------------------
class SharedLock {
 public:
  std::shared_ptr<int> mutex;
  int* mutex_ptr = nullptr;  // what device code uses: it cannot call shared_ptr's members
  SharedLock() {
    int state = 0;
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&mutex_ptr), sizeof(int)));
    CUDA_CHECK(cudaMemcpy(mutex_ptr, &state, sizeof(int), cudaMemcpyHostToDevice));
    mutex = std::shared_ptr<int>(mutex_ptr, [](int* p) { g_log->free(p); });
  }
  SharedLock(const SharedLock& o) : mutex(o.mutex), mutex_ptr(o.mutex_ptr) { ++g_log->copies; }
  SharedLock& operator=(const SharedLock&) = default;
  ~SharedLock() { ++g_log->destructor_calls; }
  __device__ bool lock(const SpinDeadline& d) { return fenced_take(mutex_ptr, d); }
  __device__ void unlock() { fenced_give(mutex_ptr); }
};

// ---- an owner that cannot be copied, and the trivially copyable view kernels take ---------------
struct MutexRef {
  int* mutex;
  __device__ bool lock(const SpinDeadline& d) const { return fenced_take(mutex, d); }
  __device__ void unlock() const { fenced_give(mutex); }
};
class MutexOwner {
 public:
  MutexOwner() {
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&m_), sizeof(int)));
    CUDA_CHECK(cudaMemset(m_, 0, sizeof(int)));
  }
  ~MutexOwner() {
    if (m_) {
      ++g_log->destructor_calls;
      g_log->free(m_);
    }
  }
  MutexOwner(const MutexOwner&) = delete;
  MutexOwner& operator=(const MutexOwner&) = delete;
  MutexOwner(MutexOwner&& o) noexcept : m_(o.m_) { o.m_ = nullptr; }
  MutexOwner& operator=(MutexOwner&&) = delete;
  MutexRef ref() const { return MutexRef{m_}; }

 private:
  int* m_ = nullptr;
};
// What makes the bug impossible, checked when this file compiles: the owner cannot be passed by
// value (`kernel<<<g, b>>>(owner)` does not compile), and the view a kernel gets owns nothing.
static_assert(!std::is_copy_constructible_v<MutexOwner>, "the owner of the mutex must not be copyable");
static_assert(std::is_trivially_copyable_v<MutexRef> && std::is_trivially_destructible_v<MutexRef>,
              "a kernel's view of the mutex must be a plain value");

__global__ void by_value_kernel(int* cnt, int iters, CudaKernelLock lock, SpinDeadline d, int* gave_up) {
  count_under(lock, cnt, iters, d, gave_up);
}
__global__ void device_copy_kernel(int* cnt, int iters, CudaKernelLock* lock, SpinDeadline d, int* gave_up) {
  count_under(*lock, cnt, iters, d, gave_up);
}
__global__ void shared_ptr_kernel(int* cnt, int iters, SharedLock lock, SpinDeadline d, int* gave_up) {
  count_under(lock, cnt, iters, d, gave_up);
}
__global__ void owner_ref_kernel(int* cnt, int iters, MutexRef lock, SpinDeadline d, int* gave_up) {
  count_under(lock, cnt, iters, d, gave_up);
}


}  // namespace

CopyObservation gpu_copy_bug(int blocks, int iters, unsigned long long deadline_ns) {
  CopyObservation o;
  o.expected = static_cast<long long>(blocks) * iters;
  FreeLog log;
  g_log = &log;
  const std::string grid = "<<<" + std::to_string(blocks) + ", 1>>>";
  int* dev_c = nullptr;
  int* gave_up = nullptr;
  unsigned* timed_out = nullptr;
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&dev_c), sizeof(int)));
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&gave_up), sizeof(int)));
  CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&timed_out), sizeof(unsigned)));
  const SpinDeadline d{deadline_ns, timed_out};
  int* other = nullptr;
  int before_end[3] = {0, 0, 0};
  {
    CudaKernelLock lock_;  // the blog's callKernel(): one lock, two launches, the lock passed by value
    int* const mutex = lock_.mutex;
    o.steps.push_back({"CudaKernelLock lock_;", "cudaSuccess", say("copy.step-malloc", {{"mutex", hex(mutex)}})});

    auto launch = [&](int n) {
      (void)cudaMemset(dev_c, 0, sizeof(int));
      (void)cudaMemset(gave_up, 0, sizeof(int));
      const int calls = log.destructor_calls, ok = log.frees_ok, failed = log.frees_failed;
      by_value_kernel<<<blocks, 1>>>(dev_c, iters, lock_, d, gave_up);
      const cudaError_t last = cudaGetLastError();  // the blog checks exactly this
      const int ran = log.destructor_calls - calls;
      const bool freed = log.frees_ok > ok, failed_now = log.frees_failed > failed;
      const std::string frees = freed && failed_now ? say("copy.free-succeeded-then-failed", {{"error", log.last}})
                                : freed             ? say("copy.free-succeeded")
                                : failed_now        ? say("copy.free-failed", {{"error", log.last}})
                                                    : std::string();
      o.steps.push_back({say("copy.step-launch",
                             {{"launch", n}, {"call", "GtThrCntKernel" + grid + "(..., dev_c, lock_); cudaGetLastError()"}}),
                         with_text(last),
                         say(ran == 1 ? "copy.step-ran-once" : "copy.step-ran", {{"ran", ran}, {"frees", frees}})});
    };
    auto sync_and_count = [&](int n, long long& count) {
      const cudaError_t e = cudaDeviceSynchronize();
      int c = -1, g = 0;
      const cudaError_t m = cudaMemcpy(&c, dev_c, sizeof(int), cudaMemcpyDeviceToHost);
      (void)cudaMemcpy(&g, gave_up, sizeof(int), cudaMemcpyDeviceToHost);
      count = m == cudaSuccess ? c : -1;
      std::string detail = m == cudaSuccess ? say("copy.step-count", {{"count", c}, {"expected", o.expected}})
                                            : say("copy.step-count-unread", {{"error", with_text(m)}});
      if (m == cudaSuccess && g > 0) detail += say("copy.step-gave-up", {{"blocks", g}});
      if (n == 2) o.second_timed_out = m == cudaSuccess && g > 0;
      o.steps.push_back({say("copy.step-sync", {{"launch", n}}), with_text(e), detail});
    };

    launch(1);
    sync_and_count(1, o.count1);
    cudaPointerAttributes attr{};
    const cudaError_t pa = cudaPointerGetAttributes(&attr, mutex);
    o.steps.push_back({"cudaPointerGetAttributes(lock_.mutex)", name_of(pa),
                       pa != cudaSuccess                    ? std::string()
                       : attr.type == cudaMemoryTypeDevice ? say("copy.step-still-device")
                                                           : say("copy.step-freed")});
    launch(2);
    sync_and_count(2, o.count2);

    // The program goes on and allocates something else: where does it land?
    const cudaError_t am = cudaMalloc(reinterpret_cast<void**>(&other), sizeof(int));
    if (am == cudaSuccess) (void)cudaMemset(other, 0, sizeof(int));
    o.reused = am == cudaSuccess && other == mutex;
    o.steps.push_back({say("copy.step-next-malloc"), with_text(am),
                       say(o.reused ? "copy.step-reused" : "copy.step-not-reused", {{"address", hex(other)}})});
    before_end[0] = log.destructor_calls;
    before_end[1] = log.frees_ok;
    before_end[2] = log.frees_failed;
  }  // lock_ goes out of scope: its own destructor frees the mutex once more
  o.steps.push_back({say("copy.step-end"), log.last,
                     say(log.frees_ok > before_end[1] ? (o.reused ? "copy.step-end-freed-other" : "copy.free-succeeded")
                                                      : "copy.step-end-failed")});
  if (other) {
    const cudaError_t e = cudaFree(other);
    o.steps.push_back({say("copy.step-free-other"), with_text(e),
                       e == cudaSuccess ? std::string() : say("copy.step-free-other-fails")});
  }
  o.destructor_calls = log.destructor_calls;
  o.frees_ok = log.frees_ok;
  o.frees_failed = log.frees_failed;
  o.steps.push_back({say("copy.step-every-free"), "", log.results});
  (void)cudaFree(dev_c);
  (void)cudaFree(gave_up);
  (void)cudaFree(timed_out);
  g_log = nullptr;
  return o;
}

std::vector<FixRun> gpu_copy_fixes(int blocks, int iters, unsigned long long deadline_ns) {
  std::vector<FixRun> out;
  Scratch s;
  const SpinDeadline d{deadline_ns, s.timed_out};
  const long long expected = static_cast<long long>(blocks) * iters;
  auto run_twice = [&](FixRun& f, auto&& launch) {
    for (int n = 1; n <= 2; ++n) {
      s.reset();
      launch();
      CUDA_CHECK_LAUNCH();
      CUDA_CHECK(cudaDeviceSynchronize());
      (n == 1 ? f.count1 : f.count2) = s.count();
    }
  };
  {
    FreeLog log;
    g_log = &log;
    FixRun f;
    f.name = say("copy.fix-1");
    f.expected = expected;
    {
      CudaKernelLock lock_;
      CudaKernelLock* dev_lock = nullptr;
      CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&dev_lock), sizeof(CudaKernelLock)));
      CUDA_CHECK(cudaMemcpy(dev_lock, &lock_, sizeof(CudaKernelLock), cudaMemcpyHostToDevice));
      run_twice(f, [&] { device_copy_kernel<<<blocks, 1>>>(s.cnt, iters, dev_lock, d, s.gave_up); });
      CUDA_CHECK(cudaFree(dev_lock));  // the blog never frees it
    }
    f.frees = log.frees_ok + log.frees_failed;
    f.frees_failed = log.frees_failed;
    out.push_back(f);
  }
  {
    FreeLog log;
    g_log = &log;
    FixRun f;
    f.name = say("copy.fix-3");
    f.expected = expected;
    {
      SharedLock lock_;
      run_twice(f, [&] { shared_ptr_kernel<<<blocks, 1>>>(s.cnt, iters, lock_, d, s.gave_up); });
      f.copies_made = log.copies;
    }
    f.frees = log.frees_ok + log.frees_failed;
    f.frees_failed = log.frees_failed;
    out.push_back(f);
  }
  {
    FreeLog log;
    g_log = &log;
    FixRun f;
    f.name = say("copy.fix-owner");
    f.expected = expected;
    {
      MutexOwner owner;
      run_twice(f, [&] { owner_ref_kernel<<<blocks, 1>>>(s.cnt, iters, owner.ref(), d, s.gave_up); });
    }
    f.frees = log.frees_ok + log.frees_failed;
    f.frees_failed = log.frees_failed;
    out.push_back(f);
  }
  g_log = nullptr;
  return out;
}

}  // namespace cudasync::lock
