// Part 6: the blog's fix 2 for the by-value copy of part 5. The device allocation belongs to a
// class Mutex (cudaMalloc in its constructor, cudaFree in its destructor), and every CudaKernelLock
// holds it through a std::shared_ptr: a copy only adds to the use count, and the Mutex goes when the
// last lock object does. The classes are the blog's, with two changes: Mutex::mutex is public (the
// blog declares it private and then reads mutex->mutex from CudaKernelLock, which does not
// compile), and every constructor, destructor and cudaFree is counted, so the report can say who
// freed the mutex and when. Device code cannot call shared_ptr's members, so the kernel uses the
// raw copy mutex_ptr, as the blog's does.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "core/cuda/check.hpp"
#include "core/cuda/deadline.cuh"
#include "techniques/lock/lock_copy_device.cuh"
#include "techniques/lock/lock_gpu.hpp"

namespace cudasync::lock {

using cuda::SpinDeadline;

namespace {

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

}  // namespace

SharedMutexRun gpu_shared_mutex(int blocks, int iters, unsigned long long deadline_ns) {
  SharedMutexRun r;
  r.expected = static_cast<long long>(blocks) * iters;
  OwnerLog log;
  const OwnerLogScope scope(log);
  Scratch s;
  const SpinDeadline d{deadline_ns, s.timed_out};
  const std::string grid = "<<<" + std::to_string(blocks) + ", 1>>>";
  int* mutex = nullptr;
  // One launch of the blog's kernel with `lock` by value: the copies the statement made, the count,
  // and whether the mutex is still a device allocation afterwards.
  auto launch = [&](int n, const CudaKernelLock& lock) {
    s.reset();
    const int copies = log.copies;
    gt_thr_cnt_kernel<<<blocks, 1>>>(s.cnt, iters, lock, d, s.gave_up);
    const cudaError_t last = cudaGetLastError();
    const int made = log.copies - copies;
    const long long owners = lock.mutex.use_count();
    CUDA_CHECK(cudaDeviceSynchronize());
    const long long count = s.count();
    int gave_up = 0;
    CUDA_CHECK(cudaMemcpy(&gave_up, s.gave_up, sizeof(int), cudaMemcpyDeviceToHost));
    const bool alive = device_memory(mutex);
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
    std::optional<CudaKernelLock> lock_(std::in_place);
    mutex = lock_->mutex_ptr;
    r.steps.push_back({"CudaKernelLock lock_;", "cudaSuccess", say("shared.step-make-shared", {{"mutex", hex(mutex)}})});
    launch(1, *lock_);
    launch(2, *lock_);
    CudaKernelLock keeper = *lock_;
    lock_.reset();
    r.steps.push_back({say("shared.step-keeper"), "",
                       say("shared.step-keeper-detail",
                           {{"owners", keeper.mutex.use_count()},
                            {"calls", log.mutex_destructor_calls},
                            {"mutex", say(device_memory(mutex) ? "shared.still-device" : "shared.not-device")}})});
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
