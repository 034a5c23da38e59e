// named-barriers' exercises: every answer is read from a run of the lesson (the GPU's counts where
// there is a GPU, the model's otherwise), never stored.
#include "techniques/named_barriers/named_barriers_course.hpp"

#include <string>

#include "core/course/report_read.hpp"

namespace cudasync::named_barriers {

namespace {

using course::Answer;
using course::AnswerKind;
using course::Exercise;
using course::LessonRunner;
using std::to_string;

const char* kLesson = "named-barriers";

Exercise syncthreads_count() {
  Exercise e;
  e.number = 1;
  e.id = "syncthreads-count-lane-5";
  e.question = {"What does __syncthreads_count(lane < 5) return in a block of 100 threads (lane = threadIdx.x % 32)?",
                "在 100 个线程的块里，__syncthreads_count(lane < 5) 返回多少（lane = threadIdx.x % 32）？"};
  e.hint = {"100 threads are three full warps and a fourth with only some lanes.", "100 个线程是三个满的 warp，加上一个只有部分 lane 的第四个 warp。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "bar-red", "--threads", "100", "--predicate", "lane<5"});
    const report::Table& t = course::table(rep, "bar-red", "reductions");
    const std::string col = r.context().gpu ? "sync-count" : "model-count";
    const std::string v = to_string(course::as_int(t.cell(course::row_where(t, "predicate", "lane<5"), col)));
    return Answer{v, {v + ": lanes 0-4 of warps 0, 1 and 2 (threads 0-4, 32-36, 64-68) and lanes 0-3 of the partial "
                      "warp 3 (threads 96-99: only four of its lanes exist).",
                      v + "：warp 0、1、2 的 lane 0-4（线程 0-4、32-36、64-68），加上不满的 warp 3 的 lane 0-3"
                      "（线程 96-99：它只有这四个 lane）。"}};
  };
  return e;
}

Exercise groups_wait() {
  Exercise e;
  e.number = 2;
  e.id = "named-barrier-groups-independent";
  e.format = {AnswerKind::choice, {"yes", "no"}};
  e.question = {"A block of 256 threads: warps 0-3 end each phase with bar.sync 1, 128 and warps 4-7 with "
                "bar.sync 2, 128. Does warp 0 ever wait for warp 5? Answer yes or no.",
                "256 个线程的块：warp 0-3 每个阶段以 bar.sync 1, 128 结束，warp 4-7 以 bar.sync 2, 128 结束。"
                "warp 0 会等 warp 5 吗？回答 yes 或 no。"};
  e.hint = {"What does barrier 1 count, and which warps arrive at it?", "1 号屏障数的是什么？哪些 warp 会到达它？"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "bar-sync", "--groups", "128,128"});
    const report::Check& c = course::check(rep, "bar-sync", "model-finishes");
    // The run holds group 1 before its first barrier until group 0 has passed all of its phases:
    // it finishes only if group 0 never needs group 1.
    return Answer{c.passed ? "no" : "yes",
                  {"no: each barrier counts only its own arrivals, so barrier 1 completes when warps 0-3 have "
                   "arrived. The lesson proves it by holding warps 4-7 until warps 0-3 have passed every phase: " +
                       c.detail + ".",
                   "不会：每个屏障只数自己的到达者，warp 0-3 到齐 1 号屏障就完成。本课先扣住 warp 4-7，"
                   "直到 warp 0-3 走完所有阶段，以此证明：" + c.detail + "。"}};
  };
  return e;
}

Exercise third_warp() {
  Exercise e;
  e.number = 3;
  e.id = "third-warp-at-bar-sync-64";
  e.format = {AnswerKind::choice, {"finishes", "hangs"}};
  e.question = {"Three warps execute bar.sync 1, 64 and nothing else arrives at barrier 1. Does the third warp "
                "finish or hang? Answer finishes or hangs.",
                "三个 warp 执行 bar.sync 1, 64，此外没有别的线程到达 1 号屏障。第三个 warp 会结束（finishes）"
                "还是挂起（hangs）？"};
  e.hint = {"A phase of barrier 1 completes after 64 threads, that is two warps. What starts after it?",
            "1 号屏障的一个阶段在 64 个线程（两个 warp）到达后完成。之后开始的是什么？"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "misuse", "--count", "64", "--arrive", "96"});
    const report::Table& t = course::table(rep, "misuse", "case-0-model");
    const std::string without = course::as_text(t.cell(0, "without-rescue"));
    const std::string v = without.find("hang") != std::string::npos ? "hangs" : "finishes";
    return Answer{v, {"the model: warps released together " + course::as_text(t.cell(0, "phases")) + ", without "
                      "rescue arrivals it " + without + ". The first two warps complete a phase of 64; the third "
                      "starts the next phase and waits for 32 more threads that never come.",
                      "模型：一起放行的 warp 为 " + course::as_text(t.cell(0, "phases")) + "，没有救援到达时：" +
                          without + "。前两个 warp 凑满 64 完成一个阶段；第三个开始下一个阶段，"
                          "等待永远不会来的另外 32 个线程。"}};
  };
  return e;
}

Exercise producer_phases() {
  Exercise e;
  e.number = 4;
  e.id = "producer-consumer-phases";
  e.question = {"The PTX ISA's producer/consumer: one producer warp and one consumer warp hand over 4 rounds through "
                "barrier 1 (slot full) and barrier 2 (slot empty). How many barrier phases complete in all?",
                "PTX ISA 里的生产者/消费者：一个生产者 warp 和一个消费者 warp 通过 1 号屏障（槽满）和 2 号屏障"
                "（槽空）交接 4 轮。一共完成多少个屏障阶段？"};
  e.hint = {"Each round, each barrier completes once.", "每一轮，每个屏障各完成一次。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "producer-consumer", "--rounds", "4"});
    const report::Table& t = course::table(rep, "producer-consumer", "phases");
    const std::string v = to_string(t.rows.size());
    return Answer{v, {v + " phases: every round completes barrier 1 once (the producer arrives, the consumer waits) "
                      "and barrier 2 once (the consumer arrives, the producer waits).",
                      v + " 个阶段：每一轮 1 号屏障完成一次（生产者 arrive，消费者等待），2 号屏障完成一次"
                      "（消费者 arrive，生产者等待）。"}};
  };
  return e;
}

}  // namespace

const course::LessonCourse& course() {
  static const course::LessonCourse c{
      {"--part", "bar-sync,bar-red"},
      {"A block has sixteen hardware barriers and each counts only its own arrivals, in whole warps: groups of warps "
       "can synchronize apart, and a count that never fills hangs every warp that waits on it.",
       "一个块有十六个硬件屏障，每个只数自己的到达者，而且按整个 warp 计数：几组 warp 可以各自同步；"
       "计数永远凑不满时，等在上面的 warp 全部挂起。"},
      {syncthreads_count(), groups_wait(), third_warp(), producer_phases()}};
  return c;
}

}  // namespace cudasync::named_barriers
