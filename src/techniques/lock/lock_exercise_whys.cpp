// How the answer of each of lock's computed exercises follows, in English and Chinese, by
// exercise id: `cudasync check` gives it with a wrong answer's reason and `exercise N --answer` with
// the answer; its {names} are the values the exercise's compute read from the run. It lives here,
// not in lessons/lock/*.md: those texts are installed for students, and a why gives the answer away.
#include "techniques/lock/lock_course.hpp"

namespace cudasync::lock {

const course::Whys& exercise_whys() {
  static const course::Whys whys = {
      {"warp-lock-which-scheduler-deadlocks",
       {R"w(The model: lockstep {lockstep}; independent {independent}. Lockstep: {waits}.)w",
        R"w(模型：lockstep 下 {lockstep}；independent 下 {independent}。lockstep 时：{waits}。)w"}},
      {"stale-read-count",
       {R"w(The model ends with {answer}: {how}. A fence in `lock()` and `unlock()` (or acquire / release) )w"
        R"w(makes the load miss the stale line.)w",
        R"w(模型最后是 {answer}：{how}。在 `lock()` 和 `unlock()` 里加 fence（或用 acquire / release）)w"
        R"w(就不会读到过时的缓存行。)w"}},
      {"delay-does-not-fix",
       {R"w(With the delay the model counts {count} of {right}: the stale line sits in the other SM's L1 )w"
        R"w(however long anyone waits; only a fence or acquire / release makes the load go past it.)w",
        R"w(加了延时，模型计数为 {count}（应为 {right}）：过时的缓存行留在另一个 SM 的 L1 里，等多久)w"
        R"w(都一样；只有 fence 或 acquire / release 才能让读取绕过它。)w"}},
      {"by-value-frees-of-freed",
       {R"w({frees} cudaFree calls, {answer} of them of a freed pointer: every copy's destructor frees the )w"
        R"w(same mutex. A `shared_ptr<Mutex>` frees it once, after its last owner.)w",
        R"w(共 {frees} 次 cudaFree，其中 {answer} 次释放已释放的指针：每个拷贝的析构函数都释放同一个)w"
        R"w(互斥量。用 `shared_ptr<Mutex>` 则只在最后一个持有者结束时释放一次。)w"}},
      {"combining-handoffs",
       {R"w(The model: {detail}. One handoff serves many critical sections.)w",
        R"w(模型：{detail}。一次交接服务多个临界区。)w"}},
  };
  return whys;
}

}  // namespace cudasync::lock
