// lockfree-barrier's exercises: every answer is read from a run of the lesson (its step-by-step
// model, the occupancy of this GPU or of the model's assumed one), never stored.
#include "techniques/lockfree_barrier/lockfree_barrier_course.hpp"

#include <string>

#include "core/course/report_read.hpp"

namespace cudasync::lockfree_barrier {

namespace {

using course::Answer;
using course::AnswerKind;
using course::Exercise;
using course::LessonRunner;
using std::to_string;

const char* kLesson = "lockfree-barrier";

Exercise mutex_value() {
  Exercise e;
  e.number = 1;
  e.id = "xf-lock-final-mutex";
  e.question = {"Xiao & Feng's lock-based barrier, repaired: each block's thread 0 adds 1 to g_mutex and waits "
                "until g_mutex reaches goalVal, which grows by N (the number of blocks) at every barrier. A grid of "
                "8 blocks runs 5 phases (4 barriers). What does g_mutex hold at the end?",
                "修好的 Xiao & Feng 基于锁的屏障：每个块的 0 号线程给 g_mutex 加 1，然后等待 g_mutex 达到 goalVal，"
                "goalVal 每过一个屏障增加 N（块数）。8 个块的网格运行 5 个阶段（4 个屏障）。最后 g_mutex 是多少？"};
  e.hint = {"The counter is never reset.", "计数器从不清零。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "xf-lock", "--blocks", "8", "--phases", "5"});
    const std::string words = course::as_text(course::fact(rep, "xf-lock", "model-words"));
    const std::string v = to_string(course::number_after(words, "g_mutex").value_or(-1));
    return Answer{v, {"the model ends with " + words + ": 8 arrivals at each of the 4 barriers, 8 x 4 = " + v +
                      "; the goal grows with it, so no reset is needed.",
                      "模型最后是 " + words + "：4 个屏障每个 8 次到达，8 x 4 = " + v + "；目标值随之增长，所以不需要清零。"}};
  };
  return e;
}

Exercise seed_lock() {
  Exercise e;
  e.number = 2;
  e.id = "xf-lock-seed-outcome";
  e.format = {AnswerKind::choice, {"completes", "deadlocks"}};
  e.question = {"The lock-based barrier as widely copied spins while g_mutex != goalVal (instead of <). Run with "
                "a small grid, does it complete or deadlock? Answer completes or deadlocks.",
                "流传的基于锁的屏障写成 g_mutex != goalVal 时自旋（而不是 <）。用小网格运行，它会完成（completes）"
                "还是死锁（deadlocks）？"};
  e.hint = {"A block that has passed the barrier can add to g_mutex for the next one before a slow block has "
            "read it.",
            "已经通过屏障的块，可能在慢的块读到 g_mutex 之前，就为下一个屏障给它加了数。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "xf-lock-seed", "--blocks", "8", "--phases", "5"});
    const std::string sim = course::as_text(course::fact(rep, "xf-lock-seed", "model-sim"));
    const std::string v = sim.find("deadlock") != std::string::npos ? "deadlocks" : "completes";
    return Answer{v, {"the model: " + sim + ". A fast block's next arrival pushes g_mutex past goalVal before the "
                      "slow block reads it, and != never holds again.",
                      "模型：" + sim + "。快的块的下一次到达让 g_mutex 在慢的块读取之前越过了 goalVal，"
                      "!= 的条件再也不会成立。"}};
  };
  return e;
}

Exercise seed_lockfree() {
  Exercise e;
  e.number = 3;
  e.id = "xf-lockfree-seed-passes-early";
  e.format = {AnswerKind::choice, {"yes", "no"}};
  e.question = {"The lock-free barrier (Arrayin / Arrayout and a master block) as widely copied: can a block pass "
                "barrier 1 before every block has arrived? Answer yes or no.",
                "流传的无锁屏障（Arrayin / Arrayout 加一个主块）：会不会有块在所有块到达之前就通过了 1 号屏障？"
                "回答 yes 或 no。"};
  e.hint = {"Look at which thread of the master block writes Arrayout, and what it waited for.",
            "看主块里哪个线程写 Arrayout，它等过什么。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "xf-lockfree-seed", "--blocks", "8", "--phases", "5"});
    const std::string sim = course::as_text(course::fact(rep, "xf-lockfree-seed", "model-sim"));
    const bool early = sim.find("passed barrier") != std::string::npos;
    return Answer{early ? "yes" : "no", {"the model: " + sim + ".", "模型：" + sim + "。"}};
  };
  return e;
}

Exercise resident_blocks() {
  Exercise e;
  e.number = 4;
  e.id = "resident-blocks-256";
  e.question = {"A software grid barrier is safe only while every block of the grid is resident at once. With "
                "blocks of 256 threads, how many blocks is that on the GPU this run uses (the model assumes an "
                "H100)?",
                "软件网格屏障只有在网格的所有块同时驻留时才安全。每块 256 个线程时，在本次运行所用的 GPU 上"
                "（模型假设为 H100）最多是多少个块？"};
  e.hint = {"SMs times the blocks of 256 threads one SM holds (its thread limit, 2048 on an H100).",
            "SM 数乘以一个 SM 能容纳的 256 线程块数（受每个 SM 的线程上限限制，H100 为 2048）。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "relaunch", "--threads", "256", "--phases", "2"});
    const std::string v = to_string(course::as_int(course::fact(rep, "setup", "resident-software")));
    return Answer{v, {v + " blocks of 256 threads can be resident at once here (the occupancy API on a GPU; an "
                      "H100's 132 SMs x 8 on the model). One more block and a barrier inside the kernel deadlocks.",
                      "这里最多同时驻留 " + v + " 个 256 线程的块（GPU 上由 occupancy API 给出；模型按 H100 的 "
                      "132 个 SM x 8 计算）。再多一个块，核函数内的屏障就会死锁。"}};
  };
  return e;
}

}  // namespace

const course::LessonCourse& course() {
  static const course::LessonCourse c{
      {"--part", "xf-lock,grid-sync,own", "--phases", "8"},
      {"A barrier inside a kernel is safe only when every block of the grid is resident at once, and correct only "
       "with a release on arrival and an acquire after the wait; relaunching the kernel is the barrier that always "
       "works.",
       "核函数内的屏障只有在网格所有块同时驻留时才安全，而且到达时要 release、等待后要 acquire 才正确；"
       "重新启动核函数是永远可行的屏障。"},
      {mutex_value(), seed_lock(), seed_lockfree(), resident_blocks()}};
  return c;
}

}  // namespace cudasync::lockfree_barrier
