#pragma once
// RAII owner of device memory: copy deleted, move allowed. The lock class of a well-known analysis of
// CUDA by Example's lock frees its mutex in the destructor of a by-value copy; with copies deleted,
// that bug cannot compile.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "core/cuda/check.hpp"

namespace cudasync::cuda {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), count_ * sizeof(T)));
  }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }

  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void upload(const T* host, std::size_t n) { CUDA_CHECK(cudaMemcpy(ptr_, host, n * sizeof(T), cudaMemcpyHostToDevice)); }
  void upload(const std::vector<T>& host) { upload(host.data(), host.size()); }
  void download(T* host, std::size_t n) const { CUDA_CHECK(cudaMemcpy(host, ptr_, n * sizeof(T), cudaMemcpyDeviceToHost)); }
  std::vector<T> download() const {
    std::vector<T> h(count_);
    download(h.data(), count_);
    return h;
  }
  // Fill every byte with `byte` (0xAB makes a recognisable poison for "never written").
  void fill_bytes(int byte) { CUDA_CHECK(cudaMemset(ptr_, byte, bytes())); }

 private:
  void release() noexcept {
    if (ptr_) CUDA_CHECK_NOTHROW(cudaFree(ptr_));
    ptr_ = nullptr;
  }
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace cudasync::cuda
