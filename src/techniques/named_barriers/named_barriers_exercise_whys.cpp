// How the answer of each of named-barriers's computed exercises follows, in English and Chinese, by
// exercise id: `cudasync check` gives it with a wrong answer's reason and `exercise N --answer` with
// the answer; its {names} are the values the exercise's compute read from the run. It lives here,
// not in lessons/named-barriers/*.md: those texts are installed for students, and a why gives the answer away.
#include "techniques/named_barriers/named_barriers_course.hpp"

namespace cudasync::named_barriers {

const course::Whys& exercise_whys() {
  static const course::Whys whys = {
      {"syncthreads-count-lane-5",
       {R"w({answer}: lanes 0-4 of warps 0, 1 and 2 (threads 0-4, 32-36, 64-68) and lanes 0-3 of the partial )w"
        R"w(warp 3 (threads 96-99: only four of its lanes exist).)w",
        R"w({answer}：warp 0、1、2 的 lane 0-4（线程 0-4、32-36、64-68），加上不满的 warp 3 的 lane 0-3（)w"
        R"w(线程 96-99：它只有这四个 lane）。)w"}},
      {"named-barrier-groups-independent",
       {R"w(No: each barrier counts only its own arrivals, so barrier 1 completes when warps 0-3 have )w"
        R"w(arrived. The lesson proves it by holding warps 4-7 until warps 0-3 have passed every phase: )w"
        R"w({detail}.)w",
        R"w(不会：每个屏障只数自己的到达者，warp 0-3 到齐 1 号屏障就完成。本课先扣住 warp 4-7，直到 warp 0-3 走)w"
        R"w(完所有阶段，以此证明：{detail}。)w"}},
      {"third-warp-at-bar-sync-64",
       {R"w(The model: warps released together {released}; without rescue arrivals it {without}. The first )w"
        R"w(two warps complete a phase of 64; the third starts the next phase and waits for 32 more threads )w"
        R"w(that never come.)w",
        R"w(模型：一起放行的 warp 为 {released}；没有救援到达时：{without}。前两个 warp 凑满 64 完成)w"
        R"w(一个阶段；第三个开始下一个阶段，等待永远不会来的另外 32 个线程。)w"}},
      {"producer-consumer-phases",
       {R"w({answer} phases: every round completes barrier 1 once (the producer arrives, the consumer waits) )w"
        R"w(and barrier 2 once (the consumer arrives, the producer waits).)w",
        R"w({answer} 个阶段：每一轮 1 号屏障完成一次（生产者 arrive，消费者等待），2 号屏障完成一次（)w"
        R"w(消费者 arrive，生产者等待）。)w"}},
  };
  return whys;
}

}  // namespace cudasync::named_barriers
