#pragma once
// What every multi-gpu .cu file shares: memory owned by one GPU whatever GPU is current, a stream
// per GPU, peer access switched on, the current device put back, NCCL's collectives, and on the
// device the barrier across GPUs (device-scope counters, system-scope release stores into the
// peer's flag).
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "core/cuda/check.hpp"
#include "core/cuda/deadline.cuh"
#include "techniques/multi_gpu/barrier.hpp"

namespace cudasync::multi_gpu {

// ---- host ---------------------------------------------------------------------------------------

// Puts the calling thread's current device back when it goes out of scope.
class DeviceGuard {
 public:
  DeviceGuard() { CUDA_CHECK(cudaGetDevice(&saved_)); }
  ~DeviceGuard() { CUDA_CHECK_NOTHROW(cudaSetDevice(saved_)); }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int saved_ = 0;
};

// `count` elements of device memory on GPU `device`, freed there (core's DeviceBuffer allocates on
// the current device; here two GPUs take turns being current).
template <typename T>
class OnDevice {
 public:
  OnDevice(int device, std::size_t count) : device_(device), count_(count) {
    CUDA_CHECK(cudaSetDevice(device_));
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), count_ * sizeof(T)));
    CUDA_CHECK(cudaMemset(ptr_, 0, count_ * sizeof(T)));
    CUDA_CHECK(cudaDeviceSynchronize());  // zero before any kernel of a non-blocking stream reads it
  }
  ~OnDevice() {
    if (!ptr_) return;
    CUDA_CHECK_NOTHROW(cudaSetDevice(device_));
    CUDA_CHECK_NOTHROW(cudaFree(ptr_));
  }
  OnDevice(const OnDevice&) = delete;
  OnDevice& operator=(const OnDevice&) = delete;
  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  int device_ = 0;
  std::size_t count_ = 0;
  T* ptr_ = nullptr;
};

// A non-blocking stream on GPU `device`.
class DeviceStream {
 public:
  explicit DeviceStream(int device) : device_(device) {
    CUDA_CHECK(cudaSetDevice(device_));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking));
  }
  ~DeviceStream() {
    CUDA_CHECK_NOTHROW(cudaSetDevice(device_));
    CUDA_CHECK_NOTHROW(cudaStreamDestroy(s_));
  }
  DeviceStream(const DeviceStream&) = delete;
  DeviceStream& operator=(const DeviceStream&) = delete;
  cudaStream_t get() const { return s_; }
  int device() const { return device_; }
  void sync() const {
    CUDA_CHECK(cudaSetDevice(device_));
    CUDA_CHECK(cudaStreamSynchronize(s_));
  }

 private:
  int device_ = 0;
  cudaStream_t s_ = nullptr;
};

// Both GPUs of a run and a stream on each.
struct Pair {
  int dev[kGpus];
  DeviceStream s0, s1;
  Pair(int a, int b) : dev{a, b}, s0(a), s1(b) {}
  cudaStream_t stream(int g) const { return g == 0 ? s0.get() : s1.get(); }
  void sync() const {
    s0.sync();
    s1.sync();
  }
};

// Lets kernels on a touch b's memory and kernels on b touch a's (cudaDeviceEnablePeerAccess both
// ways; "already enabled" is no error). Throws when the runtime refuses. (pair.cu)
void enable_peer_access(int a, int b);

// NCCL (pair.cu): both GPUs' halves of one collective, enqueued from this one thread inside
// ncclGroupStart / ncclGroupEnd. Without NCCL built in, each throws WaivedError.
struct NcclComms;

// An all-reduce of one integer on both GPUs: their streams wait until both have got there.
void nccl_barrier(NcclComms& comms, const cudaStream_t streams[kGpus]);
// ncclAllReduce(in[g], out[g], elements, ncclUint32, ncclSum) on both GPUs.
void nccl_all_reduce(NcclComms& comms, const std::uint32_t* const in[kGpus], std::uint32_t* const out[kGpus],
                     std::size_t elements, const cudaStream_t streams[kGpus]);


// ---- device -------------------------------------------------------------------------------------
using SysRef = ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_system>;
using DevRef = ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>;

// ---- device: the barrier across GPUs ------------------------------------------------------------
// Each GPU holds a counter of its own blocks' arrivals and a copy of two flags, flags[g] = the last
// barrier all of GPU g's blocks have reached. Barrier k: thread 0 of every block adds 1 to its GPU's
// counter (device scope, acq_rel: the block's writes go with it); the block that brings it to k x
// blocks is its GPU's last, and stores k into flags[g] of both GPUs (release, system scope: a
// remote store through peer access, cumulative over every write its GPU's blocks made before
// arriving); every thread 0 then polls its own GPU's copy of both flags (relaxed, system scope)
// until both hold k, and takes one acquire fence at system scope. Only stores cross the link; the
// polls stay local, and no atomic crosses it (peer atomics need NVLink).
struct PeerBarrier {
  unsigned* counter;     // this GPU's arrivals
  unsigned* flags;       // this GPU's copy of flags[0..1]
  unsigned* peer_flags;  // the other GPU's copy (a peer pointer)
  unsigned* gave_up;     // this GPU's: raised by a spin that reached its deadline
  int slot;              // this GPU: 0 (A) or 1 (B)
  unsigned blocks;       // this GPU's grid
  unsigned long long budget_ns;
};

// flags count barriers upwards: "reached k" survives the counter's wrap-around.
__device__ __forceinline__ bool reached(unsigned flag, unsigned k) { return static_cast<int>(flag - k) >= 0; }

// Barrier number k (1, 2, ... over the life of `b`'s words). False when a spin gave up at its
// deadline, or saw that another block of its GPU had: the caller stops.
__device__ __forceinline__ bool peer_barrier(const PeerBarrier& b, unsigned k) {
  __shared__ int pass;
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned before = DevRef(*b.counter).fetch_add(1u, ::cuda::memory_order_acq_rel);
    if (before == k * b.blocks - 1u) {
      SysRef(b.flags[b.slot]).store(k, ::cuda::memory_order_release);
      SysRef(b.peer_flags[b.slot]).store(k, ::cuda::memory_order_release);
    }
    bool both = false;
    const cuda::SpinDeadline d{b.budget_ns, b.gave_up};
    cuda::spin_until(
        [&] {
          if (DevRef(*b.gave_up).load(::cuda::memory_order_relaxed) != 0u) return true;
          both = reached(SysRef(b.flags[0]).load(::cuda::memory_order_relaxed), k) &&
                 reached(SysRef(b.flags[1]).load(::cuda::memory_order_relaxed), k);
          return both;
        },
        d);
    ::cuda::atomic_thread_fence(::cuda::memory_order_acquire, ::cuda::thread_scope_system);
    pass = both ? 1 : 0;
  }
  __syncthreads();
  return pass != 0;
}

// The words of a barrier on one GPU, and the PeerBarrier its kernels get.
struct BarrierWords {
  explicit BarrierWords(int device) : words(device, 4) {}
  OnDevice<unsigned> words;  // [0] counter, [1..2] flags, [3] gave_up
  unsigned* counter() const { return words.get(); }
  unsigned* flags() const { return words.get() + 1; }
  unsigned* gave_up() const { return words.get() + 3; }
};
// Whether a spin of the barrier gave up on either GPU (read after both have finished).
inline bool any_gave_up(const BarrierWords& a, const BarrierWords& b) {
  unsigned up[kGpus] = {0, 0};
  CUDA_CHECK(cudaMemcpy(&up[0], a.gave_up(), sizeof(unsigned), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(&up[1], b.gave_up(), sizeof(unsigned), cudaMemcpyDeviceToHost));
  return up[0] != 0 || up[1] != 0;
}
inline PeerBarrier peer_barrier_of(const BarrierWords& own, const BarrierWords& other, int slot, int blocks,
                                   unsigned long long budget_ns) {
  return {own.counter(), own.flags(), other.flags(), own.gave_up(), slot, static_cast<unsigned>(blocks), budget_ns};
}

}  // namespace cudasync::multi_gpu
