// warp-primitives' exercises: every answer is read from a run of the lesson (the GPU's column where
// there is a GPU, the model's otherwise), never stored.
#include "techniques/warp_primitives/warp_primitives_course.hpp"

#include <string>

#include "core/course/answer_format.hpp"
#include "core/course/report_read.hpp"

namespace cudasync::warp_primitives {

namespace {

using course::Answer;
using course::AnswerKind;
using course::Exercise;
using course::LessonRunner;
using std::to_string;

const char* kLesson = "warp-primitives";

// What thread `t` received from a shuffle part, and from which thread.
struct Received {
  long long value = 0;
  long long source = 0;
  bool kept_own = false;
};

Received received(LessonRunner& r, const std::vector<std::string>& args, const std::string& part, long long t) {
  const report::Report rep = r.run(kLesson, args);
  const report::Table& lanes = course::table(rep, part, "lanes");
  const std::size_t row = course::row_where(lanes, "thread", t);
  Received out;
  out.value = course::as_int(lanes.cell(row, course::result_column(lanes, r.context())));
  out.source = course::as_int(lanes.cell(row, "source-lane"));
  out.kept_own = lanes.rows[row].mark == report::RowMark::kept_own;
  return out;
}

Exercise shfl_src_lane() {
  Exercise e;
  e.number = 1;
  e.id = "shfl-src-lane-modulo";
  e.question = {"A block of 16 threads, width 8, each thread passes its index tid: which value does thread 13 "
                "receive from __shfl_sync(0xffffffff, tid, 10, 8)?",
                "一个 16 线程的线程块，宽度 8，每个线程传入自己的下标 tid：线程 13 从 "
                "__shfl_sync(0xffffffff, tid, 10, 8) 得到哪个值？"};
  e.hint = {"srcLane is a lane within the caller's own segment of `width` lanes; 10 is larger than 8.",
            "srcLane 指的是调用者自己那一段（width 个 lane）里的 lane；10 比 8 大。"};
  e.compute = [](LessonRunner& r) {
    const Received got = received(r, {"--part", "shfl", "--threads", "16", "--width", "8", "--src-lane", "10"}, "shfl", 13);
    const std::string v = to_string(got.value), src = to_string(got.source);
    return Answer{v, {"srcLane is taken modulo the width: 10 % 8 = 2. Thread 13's segment is threads 8-15, whose "
                      "lane 2 is thread " + src + ", which holds " + v + ".",
                      "srcLane 按宽度取模：10 % 8 = 2。线程 13 所在的段是线程 8-15，其中第 2 个 lane 是线程 " + src +
                          "，它持有 " + v + "。"}};
  };
  return e;
}

Exercise shfl_xor_lane() {
  Exercise e;
  e.number = 2;
  e.id = "shfl-xor-lane";
  e.question = {"A warp of 32 lanes, each passing v = its lane number: which value does lane 5 receive from "
                "__shfl_xor_sync(0xffffffff, v, 3, 8)?",
                "一个 32 lane 的 warp，每个 lane 传入 v = 自己的 lane 号：lane 5 从 "
                "__shfl_xor_sync(0xffffffff, v, 3, 8) 得到哪个值？"};
  e.hint = {"The source lane is the caller's lane xor laneMask, written in binary.",
            "源 lane 是调用者的 lane 号与 laneMask 按位异或，用二进制算。"};
  e.compute = [](LessonRunner& r) {
    const Received got = received(r, {"--part", "shfl-xor", "--lane-mask", "3", "--width", "8"}, "shfl-xor", 5);
    const std::string v = to_string(got.value), src = to_string(got.source);
    return Answer{v, {"lane 5 ^ 3 = lane " + src + ", which holds " + v, "lane 5 ^ 3 = lane " + src + "，它持有 " + v}};
  };
  return e;
}

Exercise shfl_xor_segment() {
  Exercise e;
  e.number = 3;
  e.id = "shfl-xor-later-segment";
  e.question = {"A block of 16 threads, width 8, each passing tid: which value does thread 3 receive from "
                "__shfl_xor_sync(0xffffffff, tid, 8, 8)?",
                "一个 16 线程的线程块，宽度 8，每个线程传入 tid：线程 3 从 "
                "__shfl_xor_sync(0xffffffff, tid, 8, 8) 得到哪个值？"};
  e.hint = {"3 ^ 8 names a lane outside thread 3's own segment of 8. Which way does it lie?",
            "3 ^ 8 指向线程 3 自己那 8 个 lane 之外的 lane。它在前面还是后面？"};
  e.compute = [](LessonRunner& r) {
    const Received got = received(r, {"--part", "shfl-xor", "--threads", "16", "--width", "8", "--lane-mask", "8"},
                                  "shfl-xor", 3);
    const std::string v = to_string(got.value), src = to_string(got.source);
    if (got.kept_own)
      return Answer{v, {"3 ^ 8 = 11 lies in the later segment (threads 8-15): __shfl_xor_sync does not read a later "
                        "segment, so thread 3 keeps its own value, " + v + ". Thread 11 does read thread 3.",
                        "3 ^ 8 = 11 在后面一段（线程 8-15）里：__shfl_xor_sync 不读后面的段，所以线程 3 保留自己的值 " +
                            v + "。线程 11 反而能读到线程 3。"}};
    return Answer{v, {"thread 3 reads thread " + src + ", which holds " + v, "线程 3 读线程 " + src + "，它持有 " + v}};
  };
  return e;
}

Exercise shfl_down_undefined() {
  Exercise e;
  e.number = 4;
  e.id = "shfl-down-undefined-lanes";
  e.format = {AnswerKind::lanes, {}};
  e.question = {"Lanes 0-15 of a 32-thread block call __shfl_down_sync(0x0000ffff, v, 4) (width 32). Which lanes "
                "receive an undefined value? (lanes like 3,11 or 0-3, or none)",
                "一个 32 线程块的 lane 0-15 调用 __shfl_down_sync(0x0000ffff, v, 4)（宽度 32）。哪些 lane "
                "得到的值没有定义？（写成 3,11 或 0-3 这样的 lane，或 none）"};
  e.hint = {"A lane whose source is past the segment keeps its own value, which is defined. Reading a lane that "
            "does not take part is not.",
            "源 lane 超出段的 lane 保留自己的值，这是有定义的；读一个没有参与调用的 lane 才没有定义。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "shfl-down", "--mask", "0x0000ffff", "--delta", "4"});
    const report::Table& lanes = course::table(rep, "shfl-down", "lanes");
    const auto bad = course::rows_marked(lanes, report::RowMark::undefined_src, "thread");
    std::vector<long long> sources;
    for (long long t : bad) sources.push_back(course::as_int(lanes.cell(course::row_where(lanes, "thread", t), "source-lane")));
    const std::string who = course::lanes_text(bad), from = course::lanes_text(sources);
    return Answer{who, {"lanes " + who + " read lanes " + from + ", which are not in the mask 0x0000ffff and do not "
                        "take part: reading them is undefined. No lane's source lies past the 32-lane segment, so "
                        "none keeps its own value.",
                        "lane " + who + " 读 lane " + from + "，它们不在掩码 0x0000ffff 里、没有参与调用：读它们没有定义。"
                        "没有哪个 lane 的源超出 32 lane 的段，所以没有 lane 保留自己的值。"}};
  };
  return e;
}

Exercise racy_syncwarp() {
  Exercise e;
  e.number = 5;
  e.id = "racy-syncwarp-descending";
  e.question = {"Fan's racy loop: s[tid] += s[tid + offset]; __syncwarp(); for offset 16, 8, 4, 2, 1, with s[t] = t "
                "for t < 32 and 0 above. If the lanes ran one at a time, lane 31 first and lane 0 last, what would "
                "s[0] end with? (The right sum is 496.)",
                "樊哲勇书中有竞争的循环：s[tid] += s[tid + offset]; __syncwarp();，offset 依次为 16、8、4、2、1，"
                "t < 32 时 s[t] = t，其余为 0。如果各 lane 一个一个地执行，lane 31 最先、lane 0 最后，"
                "s[0] 最后是多少？（正确的和是 496。）"};
  e.hint = {"When lane t runs, lane t + offset has already added its own partner into s[t + offset].",
            "轮到 lane t 时，lane t + offset 已经把它的伙伴加进了 s[t + offset]。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "syncwarp", "--variant", "racy"});
    const std::string v = to_string(course::as_int(course::fact(rep, "syncwarp", "racy-s0-descending")));
    const std::string sum = to_string(course::as_int(course::fact(rep, "syncwarp", "right-sum")));
    return Answer{v, {"the model runs the lanes 31 down to 0: each lane reads s[t + offset] after that lane has "
                      "already written it, so sums are added again and again and s[0] ends with " + v + ", not " +
                          sum + ". The loop is a read-write race; if (tid < offset) or shuffles fix it.",
                      "模型让 lane 从 31 到 0 依次执行：每个 lane 读 s[t + offset] 时，那个 lane 已经写过它，"
                      "部分和被一加再加，s[0] 最后是 " + v + " 而不是 " + sum +
                          "。这个循环是读写竞争；加上 if (tid < offset) 或改用 shuffle 即可。"}};
  };
  return e;
}

// The warp-reduce part's trace of `ladder` ("shfl-down" or "shfl-xor"): the rows after the last step.
report::Report reduce_run(LessonRunner& r) { return r.run(kLesson, {"--part", "warp-reduce"}); }

Exercise down_sum_lanes() {
  Exercise e;
  e.number = 6;
  e.id = "shfl-down-sum-lanes";
  e.format = {AnswerKind::lanes, {}};
  e.question = {"Each lane of a warp starts with v = its lane number and runs v += __shfl_down_sync(0xffffffff, v, "
                "offset) for offset 16, 8, 4, 2, 1. Which lanes hold the warp's sum (496) at the end?",
                "warp 里每个 lane 从 v = 自己的 lane 号开始，依次对 offset = 16、8、4、2、1 执行 "
                "v += __shfl_down_sync(0xffffffff, v, offset)。最后哪些 lane 持有整个 warp 的和（496）？"};
  e.hint = {"shfl_down moves values towards lower lanes; follow lane 0, then lane 1.",
            "shfl_down 把值往编号小的 lane 方向移；先跟踪 lane 0，再看 lane 1。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = reduce_run(r);
    const report::Table& t = course::table(rep, "warp-reduce", "shfl-down");
    const std::int64_t sum = course::as_int(course::fact(rep, "warp-reduce", "right-sum"));
    std::vector<long long> holders;
    for (std::size_t i = 0; i < t.rows.size(); ++i)
      if (course::as_int(t.cell(i, "after-1")) == sum) holders.push_back(course::as_int(t.cell(i, "lane")));
    const std::string who = course::lanes_text(holders);
    return Answer{who, {"after the last step only lane(s) " + who + " hold " + to_string(sum) + ": each step adds "
                        "the value from offset lanes above, so the sum gathers towards lane 0; the upper lanes hold "
                        "partial sums, and lanes whose source lies past lane 31 add their own value again.",
                        "最后一步之后只有 lane " + who + " 持有 " + to_string(sum) +
                            "：每一步都加上 offset 个 lane 之上的值，和向 lane 0 聚拢；高位 lane 只有部分和，"
                            "源超出 lane 31 的 lane 会再加一次自己的值。"}};
  };
  return e;
}

Exercise down_lane_31() {
  Exercise e;
  e.number = 7;
  e.id = "shfl-down-lane-31";
  e.question = {"The same shfl_down ladder (v = lane number, offset 16 ... 1): which value does lane 31 hold at the "
                "end?",
                "同样的 shfl_down 阶梯（v = lane 号，offset 16 ... 1）：最后 lane 31 持有哪个值？"};
  e.hint = {"Where does lane 31's source lie at each step, and what does a lane get when its source is past the "
            "segment?",
            "每一步 lane 31 的源在哪里？源超出段时，lane 得到什么？"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = reduce_run(r);
    const report::Table& t = course::table(rep, "warp-reduce", "shfl-down");
    const std::size_t row = course::row_where(t, "lane", 31);
    std::string steps;
    for (const char* c : {"start", "after-16", "after-8", "after-4", "after-2", "after-1"})
      steps += (steps.empty() ? "" : ", ") + to_string(course::as_int(t.cell(row, c)));
    const std::string v = to_string(course::as_int(t.cell(row, "after-1")));
    return Answer{v, {"lane 31's source, 31 + offset, is past the 32-lane segment at every step, so the shuffle hands "
                      "it its own v and it doubles: " + steps + ".",
                      "lane 31 的源 31 + offset 每一步都超出 32 lane 的段，shuffle 把它自己的 v 还给它，于是每步翻倍：" +
                          steps + "。"}};
  };
  return e;
}

Exercise xor_sum_lanes() {
  Exercise e;
  e.number = 8;
  e.id = "shfl-xor-sum-count";
  e.question = {"The same ladder with __shfl_xor_sync instead of __shfl_down_sync: how many of the 32 lanes hold the "
                "sum at the end?",
                "把 __shfl_down_sync 换成 __shfl_xor_sync，其余不变：最后 32 个 lane 中有几个持有和？"};
  e.hint = {"xor pairs lanes: lane t and lane t ^ offset exchange, both ways.",
            "异或把 lane 两两配对：lane t 与 lane t ^ offset 互相交换。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = reduce_run(r);
    const report::Table& t = course::table(rep, "warp-reduce", "shfl-xor");
    const std::int64_t sum = course::as_int(course::fact(rep, "warp-reduce", "right-sum"));
    long long n = 0;
    for (std::size_t i = 0; i < t.rows.size(); ++i) n += course::as_int(t.cell(i, "after-1")) == sum ? 1 : 0;
    return Answer{to_string(n), {to_string(n) + " lanes hold " + to_string(sum) + ": every step swaps in pairs, so "
                                 "each lane adds the partial sum of the other half (a butterfly) and no broadcast is "
                                 "needed.",
                                 to_string(n) + " 个 lane 持有 " + to_string(sum) +
                                     "：每一步两两交换，每个 lane 都加上另一半的部分和（蝶形），不需要再广播。"}};
  };
  return e;
}

Exercise ballot_mask() {
  Exercise e;
  e.number = 9;
  e.id = "ballot-lane-less-5";
  e.format = {AnswerKind::mask, {}};
  e.question = {"Which 32-bit mask does __ballot_sync(0xffffffff, lane < 5) return in a full warp?",
                "在满的 warp 里，__ballot_sync(0xffffffff, lane < 5) 返回哪个 32 位掩码？"};
  e.hint = {"Bit n of the result is lane n's predicate.", "结果的第 n 位就是 lane n 的谓词。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "ballot", "--predicate", "lane<5"});
    const std::int64_t m = course::as_int(course::result_fact(rep, "ballot", "result", r.context()));
    const std::string v = *course::canonical({AnswerKind::mask, {}}, to_string(m));
    return Answer{v, {"bit n is lane n's predicate: lanes 0-4 have lane < 5, so bits 0-4 are set: " + v,
                      "第 n 位是 lane n 的谓词：lane 0-4 满足 lane < 5，所以第 0-4 位为 1：" + v}};
  };
  return e;
}

}  // namespace

const course::LessonCourse& course() {
  static const course::LessonCourse c{
      {"--part", "shfl-xor,ballot", "--width", "8", "--lane-mask", "3"},
      {"A shuffle or a vote is one instruction that the lanes of the mask execute together: each reads another "
       "lane's register with no shared memory and no barrier, and a lane outside the mask has nothing defined to "
       "give.",
       "shuffle 和 vote 都是掩码里的 lane 一起执行的一条指令：不经共享内存、不用屏障就读到别的 lane 的寄存器；"
       "掩码之外的 lane 给不出有定义的值。"},
      {shfl_src_lane(), shfl_xor_lane(), shfl_xor_segment(), shfl_down_undefined(), racy_syncwarp(), down_sum_lanes(),
       down_lane_31(), xor_sum_lanes(), ballot_mask()}};
  return c;
}

}  // namespace cudasync::warp_primitives
