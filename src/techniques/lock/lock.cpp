// lock.hpp's one function: the combining lock's answers as a check of mutual exclusion and
// linearizability. n fetch-and-add(1) requests on a counter that starts at 0 must return 0 .. n-1,
// each exactly once. Two critical sections that overlapped, an update lost, or a request served
// twice each leave a value missing and another one repeated (or out of range). The count alone
// would not see a wrong answer.
#include <string>

#include "techniques/lock/lock.hpp"

namespace cudasync::lock {

void check_answers(const std::vector<int>& answers, int iters, LockRun& run) {
  const long long n = static_cast<long long>(answers.size());
  std::vector<int> first_seen(answers.size(), -1);  // index of the request that returned each value
  run.answers_checked = n;
  run.answers_bad = 0;
  run.first_bad_answer.clear();
  const auto who = [&](long long k) {
    return say("answers.who", {{"thread", k / iters}, {"request", k % iters + 1}});
  };
  for (long long k = 0; k < n; ++k) {
    const int v = answers[static_cast<std::size_t>(k)];
    std::string bad;
    if (v < 0 || v >= n) {
      bad = say("answers.out-of-range", {{"value", v}, {"last", n - 1}, {"who", who(k)}});
    } else if (first_seen[static_cast<std::size_t>(v)] >= 0) {
      bad = say("answers.twice", {{"value", v}, {"first", who(first_seen[static_cast<std::size_t>(v)])}, {"second", who(k)}});
    } else {
      first_seen[static_cast<std::size_t>(v)] = static_cast<int>(k);
    }
    if (!bad.empty()) {
      ++run.answers_bad;
      if (run.first_bad_answer.empty()) run.first_bad_answer = bad;
    }
  }
}

}  // namespace cudasync::lock
