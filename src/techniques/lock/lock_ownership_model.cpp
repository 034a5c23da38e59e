// The ownership model of parts 5 and 6: the blog's two ways of holding the mutex, as real C++
// objects over a pretend device heap.
#include "techniques/lock/lock_ownership_model.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>

namespace cudasync::lock {

namespace {

// The pretend device: allocations are numbers; a free of a number not live is cudaErrorInvalidValue.
struct Heap {
  std::set<int> live;
  int next = 1;
  int frees = 0, frees_of_freed = 0, destructor_calls = 0;
  int alloc() {
    live.insert(next);
    return next++;
  }
  void free(int p) {
    ++frees;
    if (live.erase(p) == 0) ++frees_of_freed;
  }
  bool alive(int p) const { return live.count(p) != 0; }
};

// The blog's CudaKernelLock: a raw pointer, cudaFree in the destructor, the compiler's copy.
class ByValueLock {
 public:
  explicit ByValueLock(Heap& h) : heap_(&h), mutex_(h.alloc()) {}
  ByValueLock(const ByValueLock&) = default;
  ByValueLock& operator=(const ByValueLock&) = delete;
  ~ByValueLock() {
    ++heap_->destructor_calls;
    heap_->free(mutex_);
  }
  int ptr() const { return mutex_; }
  long long owners() const { return 1; }

 private:
  Heap* heap_;
  int mutex_;
};

// The blog's fix 2: a Mutex that frees in its destructor, held by a shared_ptr in every lock.
class Mutex {
 public:
  explicit Mutex(Heap& h) : heap_(&h), mutex(h.alloc()) {}
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;
  ~Mutex() {
    ++heap_->destructor_calls;
    heap_->free(mutex);
  }

 private:
  Heap* heap_;

 public:
  int mutex;
};
class SharedLock {
 public:
  explicit SharedLock(Heap& h) : mutex_(std::make_shared<Mutex>(h)), mutex_ptr_(mutex_->mutex) {}
  int ptr() const { return mutex_ptr_; }
  long long owners() const { return mutex_.use_count(); }

 private:
  std::shared_ptr<Mutex> mutex_;
  int mutex_ptr_;  // what a kernel would use: device code cannot call shared_ptr's members
};

std::string plural(long long n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// One launch statement: `copies` copies of the argument, destroyed as the statement returns; the
// kernel may still run after that, on the pointer the copies carried.
template <class Lock>
void launch(const Lock& arg, int copies, bool shared, Heap& h, OwnershipRun& r) {
  const int ptr = arg.ptr();
  long long owners = 0;
  {
    std::vector<Lock> stubs;
    stubs.reserve(static_cast<std::size_t>(copies));
    for (int k = 0; k < copies; ++k) stubs.push_back(arg);
    owners = arg.owners();
  }
  r.use_count_max = std::max(r.use_count_max, owners);
  const bool freed = !h.alive(ptr);
  r.launches_on_freed += freed ? 1 : 0;
  ++r.launches;
  r.steps.push_back("launch " + std::to_string(r.launches) + ": " + plural(copies, "copy", "copies") +
                    " made and destroyed as it returned" +
                    (shared ? ", use_count " + std::to_string(owners) + " meanwhile" : "") + "; " +
                    (freed ? "the mutex is already freed: its kernel may run on a freed pointer" : "the mutex is alive"));
}

}  // namespace

const char* holding_name(Holding h) {
  return h == Holding::by_value ? "the blog's CudaKernelLock, by value (cudaFree in its destructor)"
                                : "the blog's fix 2: a Mutex class held by std::shared_ptr";
}

OwnershipRun replay(const OwnershipConfig& c) {
  Heap h;
  OwnershipRun r;
  r.config = c;
  const int copies = std::max(1, c.copies_per_launch);
  if (c.holding == Holding::by_value) {
    {
      ByValueLock lock(h);
      r.steps.push_back("CudaKernelLock lock_: cudaMalloc");
      for (int i = 0; i < c.launches; ++i) launch(lock, copies, false, h, r);
    }
    r.steps.push_back("end of callKernel(): ~CudaKernelLock() for lock_ frees the mutex once more");
  } else {
    std::optional<SharedLock> lock(std::in_place, h);
    r.steps.push_back("CudaKernelLock lock_: make_shared<Mutex>(), cudaMalloc; use_count 1");
    r.use_count_max = lock->owners();
    for (int i = 0; i < c.launches; ++i) launch(*lock, copies, true, h, r);
    if (c.copy_outlives) {
      SharedLock keeper(*lock);
      r.use_count_max = std::max(r.use_count_max, keeper.owners());
      lock.reset();
      r.steps.push_back("CudaKernelLock keeper = lock_; lock_ destroyed: use_count " +
                        std::to_string(keeper.owners()) + ", the mutex " +
                        (h.alive(keeper.ptr()) ? "alive" : "freed"));
      launch(keeper, copies, true, h, r);
    } else {
      lock.reset();
    }
    r.steps.push_back("the last CudaKernelLock destroyed: ~Mutex() frees the mutex");
  }
  r.destructor_calls = h.destructor_calls;
  r.frees = h.frees;
  r.frees_of_freed = h.frees_of_freed;
  r.freed_at_end = h.live.empty();
  return r;
}

}  // namespace cudasync::lock
