// lock's exercises: every answer is read from a run of the lesson (its lane-by-lane models), never
// stored.
#include "techniques/lock/lock_course.hpp"

#include <string>

#include "core/course/report_read.hpp"

namespace cudasync::lock {

namespace {

using course::Answer;
using course::AnswerKind;
using course::Exercise;
using course::LessonRunner;
using std::to_string;

const char* kLesson = "lock";

bool deadlocks(const std::string& verdict) { return verdict.rfind("deadlock", 0) == 0; }

Exercise warp_deadlock() {
  Exercise e;
  e.number = 1;
  e.id = "warp-lock-which-scheduler-deadlocks";
  e.format = {AnswerKind::choice, {"lockstep", "independent", "both", "neither"}};
  e.question = {"<<<1, 32>>>: every lane of one warp calls the book's lock() (a CAS spin loop), increments a "
                "counter and calls unlock(). Under which warp scheduling does it deadlock: lockstep (pre-Volta), "
                "independent (Volta and newer), both or neither?",
                "<<<1, 32>>>：一个 warp 的每个 lane 都调用书中的 lock()（CAS 自旋循环），给计数器加一，再调用 "
                "unlock()。在哪种 warp 调度下会死锁：lockstep（Volta 之前）、independent（Volta 及以后）、"
                "both 还是 neither？"};
  e.hint = {"In lockstep a warp runs one path at a time and runs the other lanes' path only when the first one "
            "reaches the reconvergence point. Where is the winner of the CAS then?",
            "lockstep 下一个 warp 一次只执行一条路径，要等这条路径到达汇合点才去执行其他 lane 的路径。"
            "那时抢到 CAS 的 lane 在哪里？"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "warp-deadlock"});
    const report::Table& t = course::table(rep, "warp-deadlock", "side-by-side");
    const std::string ls = course::as_text(t.cell(0, "lockstep")), in = course::as_text(t.cell(0, "independent"));
    const bool a = deadlocks(ls), b = deadlocks(in);
    const std::string v = a && b ? "both" : a ? "lockstep" : b ? "independent" : "neither";
    const std::string waits = course::as_text(course::fact(rep, "warp-deadlock", "lockstep-waits"));
    return Answer{v, {"the model: lockstep " + ls + "; independent " + in + ". Lockstep: " + waits + ".",
                      "模型：lockstep 下 " + ls + "；independent 下 " + in + "。lockstep 时：" + waits + "。"}};
  };
  return e;
}

Exercise stale_count() {
  Exercise e;
  e.number = 2;
  e.id = "stale-read-count";
  e.question = {"The model's schedule of stale-reads: two blocks on two SMs each take the book's lock twice and run "
                "*cnt = *cnt + 1 with no fence. What count does it end with (the right count is 4)?",
                "stale-reads 的模型调度：两个块在两个 SM 上，各自获取书中的锁两次，执行 *cnt = *cnt + 1，没有 "
                "fence。最后计数是多少（正确值是 4）？"};
  e.hint = {"Each SM keeps its own L1 line of cnt from its last critical section.",
            "每个 SM 都留着自己上一次临界区里 cnt 所在的 L1 缓存行。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "stale-reads", "--runs", "1"});
    const report::Table& t = course::table(rep, "stale-reads", "variants");
    const std::string v = to_string(course::as_int(t.cell(0, "model-count")));
    const std::string how = course::as_text(course::fact(rep, "stale-reads", "how-lost"));
    return Answer{v, {"the model ends with " + v + ": " + how + ". A fence in lock() and unlock() (or acquire / "
                      "release) makes the load miss the stale line.",
                      "模型最后是 " + v + "：" + how + "。在 lock() 和 unlock() 里加 fence（或用 acquire / release）"
                      "就不会读到过时的缓存行。"}};
  };
  return e;
}

Exercise delay() {
  Exercise e;
  e.number = 3;
  e.id = "delay-does-not-fix";
  e.format = {AnswerKind::choice, {"yes", "no"}};
  e.question = {"The blog suggests a delay after the increment. In the model, does a 10 us delay after "
                "*cnt = *cnt + 1 (and no fence) save every update? Answer yes or no.",
                "那篇博客建议在加一之后延时。在模型里，*cnt = *cnt + 1 之后延时 10 微秒（不加 fence），"
                "能保住每一次更新吗？回答 yes 或 no。"};
  e.hint = {"Does waiting make the other SM's L1 line any fresher?", "等待会让另一个 SM 的 L1 缓存行变新吗？"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "delay-fix", "--delays", "10000", "--runs", "1"});
    const report::Table& t = course::table(rep, "delay-fix", "delays");
    const std::size_t row = course::row_starting(t, "variant", "delay 10 us after");
    const std::size_t fixed = course::row_starting(t, "variant", "fix 2");
    const auto got = course::as_int(t.cell(row, "model-count")), right = course::as_int(t.cell(fixed, "model-count"));
    return Answer{got == right ? "yes" : "no",
                  {"with the delay the model counts " + to_string(got) + " of " + to_string(right) + ": the stale "
                   "line sits in the other SM's L1 however long anyone waits; only a fence or acquire / release "
                   "makes the load go past it.",
                   "加了延时，模型计数为 " + to_string(got) + "（应为 " + to_string(right) + "）：过时的缓存行留在"
                   "另一个 SM 的 L1 里，等多久都一样；只有 fence 或 acquire / release 才能让读取绕过它。"}};
  };
  return e;
}

Exercise frees_of_freed() {
  Exercise e;
  e.number = 4;
  e.id = "by-value-frees-of-freed";
  e.question = {"The blog's lock class frees its mutex in its destructor and is passed by value to two launches, "
                "copied to a keeper and destroyed. How many cudaFree calls free a pointer that was already freed?",
                "博客里的锁类在析构函数里释放互斥量；它按值传给两次 kernel 启动，又复制给一个 keeper，然后销毁。"
                "有几次 cudaFree 释放的是已经释放过的指针？"};
  e.hint = {"A kernel argument is a copy made on the host, and its destructor runs on the host when the launch "
            "statement ends.",
            "kernel 参数是在主机上做的拷贝，启动语句结束时它的析构函数在主机上运行。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "shared-mutex"});
    const report::Table& t = course::table(rep, "shared-mutex", "ownership");
    const std::size_t row = course::row_starting(t, "holding", "CudaKernelLock");
    const std::string frees = to_string(course::as_int(t.cell(row, "frees")));
    const std::string bad = to_string(course::as_int(t.cell(row, "frees-of-freed")));
    return Answer{bad, {frees + " cudaFree calls, " + bad + " of them of a freed pointer: every copy's destructor "
                        "frees the same mutex. A shared_ptr<Mutex> frees it once, after its last owner.",
                        "共 " + frees + " 次 cudaFree，其中 " + bad + " 次释放已释放的指针：每个拷贝的析构函数"
                        "都释放同一个互斥量。用 shared_ptr<Mutex> 则只在最后一个持有者结束时释放一次。"}};
  };
  return e;
}

Exercise handoffs() {
  Exercise e;
  e.number = 5;
  e.id = "combining-handoffs";
  e.question = {"The combining lock in the model: 8 requests from 4 blocks. How many lock handoffs serve all 8?",
                "模型里的合并锁（combining lock）：4 个块发出 8 个请求。一共需要几次锁交接才能服务全部 8 个？"};
  e.hint = {"The thread that holds the lock serves every request queued so far, not only its own.",
            "持有锁的线程会把到目前为止排队的所有请求都处理掉，而不只是自己的。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "combining"});
    const std::string detail = course::check(rep, "combining", "model-exact").detail;
    const std::size_t at = detail.find(" lock handoff");
    const auto n = at == std::string::npos ? std::vector<std::int64_t>{} : course::numbers_in(detail.substr(0, at));
    const std::string v = n.empty() ? "?" : to_string(n.back());
    return Answer{v, {"the model: " + detail + ". One handoff serves many critical sections.",
                      "模型：" + detail + "。一次交接服务多个临界区。"}};
  };
  return e;
}

}  // namespace

const course::LessonCourse& course() {
  static const course::LessonCourse c{
      {"--part", "lock-class", "--iterations", "20"},
      {"A lock needs three things besides the CAS: no warp may spin for a lane of its own (take the lock with one "
       "thread per warp, or rely on independent scheduling), a fence or acquire / release on both sides of the "
       "critical section, and one owner of the mutex's memory.",
       "锁除了 CAS 还需要三样东西：warp 不能为自己的 lane 自旋（每个 warp 只让一个线程取锁，或依赖独立线程调度），"
       "临界区两边要有 fence 或 acquire / release，互斥量的内存只能有一个所有者。"},
      {warp_deadlock(), stale_count(), delay(), frees_of_freed(), handoffs()}};
  return c;
}

}  // namespace cudasync::lock
