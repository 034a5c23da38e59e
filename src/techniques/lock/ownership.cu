// Parts copy-destructor and shared-mutex on the GPU: the blog's lock class passed to a kernel by
// value, its fixes 1 and 3, an owner whose copy is deleted, and its fix 2 (a Mutex held by
// std::shared_ptr). The classes are written as the blog writes them (cudaMalloc in the
// constructor, cudaFree in the destructor), with one addition: every constructor, destructor and
// cudaFree is counted, so the report can say who freed the mutex, when, and what CUDA answered.
//
// What happens (CUDA C++ Programming Guide, "__global__ Function Argument Processing"): the launch
// statement copies a by-value argument into compiler-generated stub functions, one or more times,
// and memcpy's its bytes into the kernel's parameter memory. The copies are destroyed on the host
// when the stubs return, possibly before the kernel has finished. The blog's destructor frees the
// mutex each time. Nothing runs on the device at kernel exit.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "core/cuda/check.hpp"
#include "core/cuda/deadline.cuh"
#include "core/cuda/device_buffer.hpp"
#include "techniques/lock/locks.hpp"
#include "techniques/lock/ownership.hpp"

namespace cudasync::lock {

using cuda::SpinDeadline;
using cuda::spin_until;

namespace {

// The blog's fixed lock() and unlock(): the spin on atomicCAS with __threadfence() after taking the
// lock, and __threadfence() before atomicExch gives it back. Every lock class of parts 5 and 6
// that is meant to be correct calls these.
__device__ inline bool fenced_take(int* mutex, const cuda::SpinDeadline& d) {
  const bool ok = cuda::spin_until([&] { return atomicCAS(mutex, 0, 1) == 0; }, d);
  __threadfence();
  return ok;
}
__device__ inline void fenced_give(int* mutex) {
  __threadfence();
  atomicExch(mutex, 0);
}

// `iters` acquisitions of `lock` around atomicAdd(cnt, 1); a wait past its deadline adds one to
// *gave_up and stops.
template <typename L>
__device__ void count_under(L& lock, int* cnt, int iters, const cuda::SpinDeadline& d, int* gave_up) {
  for (int i = 0; i < iters; ++i) {
    if (!lock.lock(d)) {
      atomicAdd(gave_up, 1);
      return;
    }
    atomicAdd(cnt, 1);
    lock.unlock();
  }
}

// Scratch for one launch: the counter, the give-up count and the deadline flag.
struct Scratch {
  cuda::DeviceBuffer<int> counter{1}, gave_up_count{1};
  cuda::DeviceBuffer<unsigned> deadline_flag{1};
  int* cnt = counter.get();
  int* gave_up = gave_up_count.get();
  unsigned* timed_out = deadline_flag.get();
  Scratch() { reset(); }
  void reset() {
    counter.fill_bytes(0);
    gave_up_count.fill_bytes(0);
    deadline_flag.fill_bytes(0);
  }
  long long count() const {
    int c = 0;
    counter.download(&c, 1);
    return c;
  }
};

inline std::string name_of(cudaError_t e) { return cudaGetErrorName(e); }
inline std::string with_text(cudaError_t e) {
  return e == cudaSuccess ? name_of(e) : name_of(e) + " (" + cudaGetErrorString(e) + ")";
}
inline std::string hex(const void* p) {
  char b[32];
  std::snprintf(b, sizeof b, "%p", p);
  return b;
}

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

// ---- the blog's class, as written (plus the log) ------------------------------------------------
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
  // One fix, `run(launch_twice)` making its lock, launching twice and destroying it, with its own log.
  const auto fix = [&](const char* name, auto&& run) {
    FreeLog log;
    g_log = &log;
    FixRun f;
    f.name = say(name);
    f.expected = static_cast<long long>(blocks) * iters;
    run([&](auto&& launch) {
      for (int n = 1; n <= 2; ++n) {
        s.reset();
        launch();
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaDeviceSynchronize());
        (n == 1 ? f.count1 : f.count2) = s.count();
      }
      f.copies_made = log.copies;
    });
    f.frees = log.frees_ok + log.frees_failed;
    f.frees_failed = log.frees_failed;
    out.push_back(f);
  };
  fix("copy.fix-1", [&](auto&& twice) {
    CudaKernelLock lock_;
    CudaKernelLock* dev_lock = nullptr;
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&dev_lock), sizeof(CudaKernelLock)));
    CUDA_CHECK(cudaMemcpy(dev_lock, &lock_, sizeof(CudaKernelLock), cudaMemcpyHostToDevice));
    twice([&] { device_copy_kernel<<<blocks, 1>>>(s.cnt, iters, dev_lock, d, s.gave_up); });
    CUDA_CHECK(cudaFree(dev_lock));  // the blog never frees it
  });
  fix("copy.fix-3", [&](auto&& twice) {
    SharedLock lock_;
    twice([&] { shared_ptr_kernel<<<blocks, 1>>>(s.cnt, iters, lock_, d, s.gave_up); });
  });
  fix("copy.fix-owner", [&](auto&& twice) {
    MutexOwner owner;
    twice([&] { owner_ref_kernel<<<blocks, 1>>>(s.cnt, iters, owner.ref(), d, s.gave_up); });
  });
  g_log = nullptr;
  return out;
}

// ---- part 6, the blog's fix 2 -------------------------------------------------------------------
// The device allocation belongs to a class Mutex (cudaMalloc in its constructor, cudaFree in its
// destructor), and every CudaKernelLock holds it through a std::shared_ptr: a copy only adds to the
// use count, and the Mutex goes when the last lock object does. The classes are the blog's, with one
// change: Mutex::mutex is public (the blog declares it private and then reads mutex->mutex from
// CudaKernelLock, which does not compile). Device code cannot call shared_ptr's members, so the
// kernel uses the raw copy mutex_ptr, as the blog's does. (Its own namespace: part 5's blog class
// has the same name.)
namespace {
namespace fix2 {

// What the run's constructors, destructors and cudaFree calls did (host code, one thread).
struct OwnerLog {
  int locks_alive = 0;   // CudaKernelLock objects now
  int copies = 0;        // CudaKernelLock copy constructions
  int mutex_destructor_calls = 0;
  int frees_ok = 0, frees_failed = 0;
  int owners_at_free = -1;
  long long use_count_max = 0;
  std::string last_free;
};
OwnerLog* g_owners = nullptr;
// Clears g_owners when the run ends, also by an exception (after every lock object is gone).
struct OwnerLogScope {
  explicit OwnerLogScope(OwnerLog& log) { g_owners = &log; }
  OwnerLogScope(const OwnerLogScope&) = delete;
  OwnerLogScope& operator=(const OwnerLogScope&) = delete;
  ~OwnerLogScope() { g_owners = nullptr; }
};

class Mutex {
 public:
  int* mutex = nullptr;
  Mutex() {
    int state = 0;
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&mutex), sizeof(int)));
    CUDA_CHECK(cudaMemcpy(mutex, &state, sizeof(int), cudaMemcpyHostToDevice));
  }
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;
  ~Mutex() {
    ++g_owners->mutex_destructor_calls;
    g_owners->owners_at_free = g_owners->locks_alive;
    const cudaError_t e = cudaFree(mutex);
    (e == cudaSuccess ? g_owners->frees_ok : g_owners->frees_failed) += 1;
    g_owners->last_free = with_text(e);
  }
};

class CudaKernelLock {
 public:
  std::shared_ptr<Mutex> mutex = nullptr;
  int* mutex_ptr = nullptr;
  CudaKernelLock() : mutex(std::make_shared<Mutex>()), mutex_ptr(mutex->mutex) { count(false); }
  CudaKernelLock(const CudaKernelLock& lock) : mutex(lock.mutex), mutex_ptr(mutex->mutex) { count(true); }
  CudaKernelLock& operator=(const CudaKernelLock&) = delete;
  ~CudaKernelLock() { --g_owners->locks_alive; }
  __device__ bool lock(const SpinDeadline& d) { return fenced_take(mutex_ptr, d); }
  __device__ void unlock() { fenced_give(mutex_ptr); }

 private:
  void count(bool copy) {
    ++g_owners->locks_alive;
    g_owners->copies += copy ? 1 : 0;
    g_owners->use_count_max = std::max(g_owners->use_count_max, static_cast<long long>(mutex.use_count()));
  }
};

// The blog's GtThrCntKernel with the lock passed by value; its critical section is atomicAdd(cnt, 1).
__global__ void gt_thr_cnt_kernel(int* cnt, int iters, CudaKernelLock lock, SpinDeadline d, int* gave_up) {
  count_under(lock, cnt, iters, d, gave_up);
}

bool device_memory(const void* p) {
  cudaPointerAttributes attr{};
  const cudaError_t e = cudaPointerGetAttributes(&attr, p);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // a freed pointer's error is an answer here, not a sticky one
    return false;
  }
  return attr.type == cudaMemoryTypeDevice;
}

}  // namespace fix2
}  // namespace

SharedMutexRun gpu_shared_mutex(int blocks, int iters, unsigned long long deadline_ns) {
  SharedMutexRun r;
  r.expected = static_cast<long long>(blocks) * iters;
  fix2::OwnerLog log;
  const fix2::OwnerLogScope scope(log);
  Scratch s;
  const SpinDeadline d{deadline_ns, s.timed_out};
  const std::string grid = "<<<" + std::to_string(blocks) + ", 1>>>";
  int* mutex = nullptr;
  // One launch of the blog's kernel with `lock` by value: the copies the statement made, the count,
  // and whether the mutex is still a device allocation afterwards.
  auto launch = [&](int n, const fix2::CudaKernelLock& lock) {
    s.reset();
    const int copies = log.copies;
    fix2::gt_thr_cnt_kernel<<<blocks, 1>>>(s.cnt, iters, lock, d, s.gave_up);
    const cudaError_t last = cudaGetLastError();
    const int made = log.copies - copies;
    const long long owners = lock.mutex.use_count();
    CUDA_CHECK(cudaDeviceSynchronize());
    const long long count = s.count();
    int gave_up = 0;
    CUDA_CHECK(cudaMemcpy(&gave_up, s.gave_up, sizeof(int), cudaMemcpyDeviceToHost));
    const bool alive = fix2::device_memory(mutex);
    r.counts.push_back(count);
    r.copies.push_back(made);
    r.alive.push_back(alive);
    r.gave_up += gave_up;
    r.steps.push_back(
        {say("copy.step-launch",
             {{"launch", n}, {"call", "GtThrCntKernel" + grid + "(..., " + (n == 3 ? "keeper" : "lock_") + "); cudaGetLastError()"}}),
         with_text(last),
         say(made == 1 ? "shared.step-launch-one" : "shared.step-launch",
             {{"copies", made},
              {"owners", owners},
              {"count", count},
              {"expected", r.expected},
              {"mutex", say(alive ? "shared.still-device" : "shared.not-device")},
              {"calls", log.mutex_destructor_calls}})});
  };
  {
    std::optional<fix2::CudaKernelLock> lock_(std::in_place);
    mutex = lock_->mutex_ptr;
    r.steps.push_back({"CudaKernelLock lock_;", "cudaSuccess", say("shared.step-make-shared", {{"mutex", hex(mutex)}})});
    launch(1, *lock_);
    launch(2, *lock_);
    fix2::CudaKernelLock keeper = *lock_;
    lock_.reset();
    r.steps.push_back({say("shared.step-keeper"), "",
                       say("shared.step-keeper-detail",
                           {{"owners", keeper.mutex.use_count()},
                            {"calls", log.mutex_destructor_calls},
                            {"mutex", say(fix2::device_memory(mutex) ? "shared.still-device" : "shared.not-device")}})});
    launch(3, keeper);
  }  // keeper, the last owner, goes: ~Mutex() frees the mutex
  r.steps.push_back({say("shared.step-last-owner"), log.last_free,
                     say("shared.step-last-owner-detail",
                         {{"calls", log.mutex_destructor_calls}, {"owners", log.owners_at_free}})});
  r.mutex_destructor_calls = log.mutex_destructor_calls;
  r.frees_ok = log.frees_ok;
  r.frees_failed = log.frees_failed;
  r.owners_at_free = log.owners_at_free;
  r.use_count_max = log.use_count_max;
  return r;
}

}  // namespace cudasync::lock
