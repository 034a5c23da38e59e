#include "core/watchdog.hpp"

#include <thread>

namespace cudasync {

Watch watch(const std::function<bool()>& done, std::chrono::milliseconds limit, std::chrono::milliseconds poll) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  Watch w;
  for (;;) {
    w.done = done();
    const auto now = Clock::now();
    w.waited = std::chrono::duration_cast<std::chrono::milliseconds>(now - t0);
    if (w.done || now - t0 > limit) return w;
    std::this_thread::sleep_for(poll);
  }
}

}  // namespace cudasync
