#pragma once
// Made-up GPU runs of a lock for the tests that feed the lesson's judges and sections.
#include "techniques/lock/locks.hpp"

namespace cudasync::lock::test_runs {

// A run in which every one of `n` critical sections completed and counted, in `ms` milliseconds.
inline LockRun exact_run(long long n, double ms) {
  LockRun r;
  r.expected = r.count = r.completed = n;
  r.ms = ms;
  return r;
}

}  // namespace cudasync::lock::test_runs
