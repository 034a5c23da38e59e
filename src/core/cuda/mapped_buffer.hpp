#pragma once
// RAII owner of pinned host memory mapped into the device's address space (cudaHostAllocMapped):
// a kernel writes through dev(), and the host reads the same bytes with read() while the kernel
// is still running, or after it has stopped running for good. That is how a child process reports
// what the threads of a kernel that never ends had done (deadlock-demo's barrier children).
//
//   MappedBuffer<long long> arrive(64, 0xff);   // every word -1 until a thread writes it
//   kernel<<<1, 64>>>(arrive.dev());            // each thread: volatile store, __threadfence_system()
//   ... watch the kernel (core/watchdog.hpp) ...
//   const std::vector<long long> seen = arrive.read();
//
// Copy deleted, as DeviceBuffer. The destructor frees the memory with cudaFreeHost, which waits
// for the device: a process whose kernel never ends must not reach it (it writes what it read and
// ends with std::_Exit). Kernels must write with volatile stores and a system fence, so that the
// host sees each write as it happens.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "core/cuda/check.hpp"

namespace cudasync::cuda {

template <typename T>
class MappedBuffer {
 public:
  // `count` elements, every byte set to `byte` (0xff makes each signed integer -1: "not written").
  MappedBuffer(std::size_t count, int byte) : count_(count) {
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host_), bytes(), cudaHostAllocMapped));
    std::memset(static_cast<void*>(host_), byte, bytes());
    CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev_), host_, 0));
  }
  ~MappedBuffer() {
    if (host_) CUDA_CHECK_NOTHROW(cudaFreeHost(host_));
  }
  MappedBuffer(const MappedBuffer&) = delete;
  MappedBuffer& operator=(const MappedBuffer&) = delete;

  T* dev() const { return dev_; }    // the device's pointer to the memory
  T* host() const { return host_; }  // the host's: write through a volatile pointer while a kernel runs
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  // What the host sees now, element by element through volatile loads: safe while a kernel runs.
  std::vector<T> read() const {
    std::vector<T> v(count_);
    for (std::size_t i = 0; i < count_; ++i) v[i] = static_cast<const volatile T*>(host_)[i];
    return v;
  }

 private:
  std::size_t count_ = 0;
  T* host_ = nullptr;
  T* dev_ = nullptr;
};

}  // namespace cudasync::cuda
