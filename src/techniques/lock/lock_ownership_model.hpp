#pragma once
// The reference model of parts 5 and 6: who frees the mutex, and when. The blog's callKernel()
// replayed in plain C++ on a pretend device heap that counts allocations and frees, with the two
// ways of holding the mutex: the blog's CudaKernelLock (a raw pointer, cudaFree in its destructor)
// and its fix 2 (a Mutex class owned by a std::shared_ptr in every copy of the lock).
//
// A launch statement copies a by-value argument into compiler-generated stubs "one or more times"
// and destroys those copies on the host as it returns, possibly before the kernel has finished
// (CUDA C++ Programming Guide, "__global__ Function Argument Processing"): the model makes
// `copies_per_launch` copies and destroys them when the launch returns, and counts a launch whose
// kernel may still be running when its mutex is freed. The copies and destructors are real C++
// (std::shared_ptr's own use count decides when the Mutex goes); only the heap is pretend.
#include <string>
#include <vector>

namespace cudasync::lock {

enum class Holding { by_value, shared_mutex };
const char* holding_name(Holding h);  // "the blog's CudaKernelLock, by value", ...

struct OwnershipConfig {
  Holding holding = Holding::by_value;
  int launches = 2;           // by value, as callKernel() does
  int copies_per_launch = 1;  // what one launch statement copies (the CUDA guide: one or more)
  // shared_mutex: then a copy outlives the original: the original is destroyed and the copy runs
  // one more launch before it goes too
  bool copy_outlives = true;
};

struct OwnershipRun {
  OwnershipConfig config;
  std::vector<std::string> steps;  // "launch 1: 1 copy made and destroyed, use_count 1, mutex alive"
  int launches = 0;
  int destructor_calls = 0;   // of the object that frees (CudaKernelLock by value, Mutex when shared)
  int frees = 0;              // cudaFree calls on the mutex
  int frees_of_freed = 0;     // of them, on a pointer already freed (cudaErrorInvalidValue)
  int launches_on_freed = 0;  // launches whose mutex was freed before their kernel could finish
  long long use_count_max = 0;  // shared_mutex: the most owners at once
  bool freed_at_end = false;  // the mutex is freed once every lock object is gone
  // What the fix must give: one free, of a live pointer, and no kernel ever on a freed mutex.
  bool frees_once() const { return frees == 1 && frees_of_freed == 0 && launches_on_freed == 0 && freed_at_end; }
};

OwnershipRun replay(const OwnershipConfig& c);

}  // namespace cudasync::lock
