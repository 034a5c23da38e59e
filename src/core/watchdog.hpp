#pragma once
// A host-side watchdog: polls something that may never happen (a kernel that may never end) until
// it happens or a time limit passes, and says which, and how long it waited. Host-only, no CUDA:
// the caller says what "done" is.
//
//   const Watch w = watch([] { return cudaStreamQuery(nullptr) != cudaErrorNotReady; },
//                         std::chrono::milliseconds(550));
//   if (!w.done) ... the kernel is hung: read what it wrote to mapped memory, end the process ...
#include <chrono>
#include <functional>

namespace cudasync {

struct Watch {
  bool done = false;                  // `done` returned true before the limit
  std::chrono::milliseconds waited{};  // from the first poll to the last
};

// Calls done() every `poll` until it returns true or `limit` has passed since the first call. done()
// is called at least once; an exception from it propagates (a kernel that ended with an error).
Watch watch(const std::function<bool()>& done, std::chrono::milliseconds limit,
            std::chrono::milliseconds poll = std::chrono::milliseconds(1));

}  // namespace cudasync
