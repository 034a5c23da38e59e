// How the answer of each of warp-primitives's computed exercises follows, in English and Chinese, by
// exercise id: `cudasync check` gives it with a wrong answer's reason and `exercise N --answer` with
// the answer; its {names} are the values the exercise's compute read from the run. It lives here,
// not in lessons/warp-primitives/*.md: those texts are installed for students, and a why gives the answer away.
#include "techniques/warp_primitives/warp_primitives_course.hpp"

namespace cudasync::warp_primitives {

const course::Whys& exercise_whys() {
  static const course::Whys whys = {
      {"shfl-src-lane-modulo",
       {R"w(srcLane is taken modulo the width: 10 % 8 = 2. Thread 13's segment is threads 8-15, whose lane 2 )w"
        R"w(is thread {src}, which holds {answer}.)w",
        R"w(srcLane 按宽度取模：10 % 8 = 2。线程 13 所在的段是线程 8-15，其中第 2 个 lane 是线程 {src}，)w"
        R"w(它持有 {answer}。)w"}},
      {"shfl-xor-lane",
       {R"w(lane 5 ^ 3 = lane {src}, which holds {answer}.)w",
        R"w(lane 5 ^ 3 = lane {src}，它持有 {answer}。)w"}},
      {"shfl-xor-later-segment",
       {R"w(3 ^ 8 = 11 lies in the later segment (threads 8-15), which `__shfl_xor_sync` does not read: )w"
        R"w(thread 3 keeps its own value, {answer}. Thread 11 does read thread 3.)w",
        R"w(3 ^ 8 = 11 在后面一段（线程 8-15）里，`__shfl_xor_sync` 不读后面的段：线程 3 保留自己的值 {answer}。)w"
        R"w(线程 11 反而能读到线程 3。)w"}},
      {"shfl-down-undefined-lanes",
       {R"w(Lanes {answer} read lanes {sources}, which are not in the mask 0x0000ffff and do not take part: )w"
        R"w(reading them is undefined. No lane's source lies past the 32-lane segment, so none keeps its own )w"
        R"w(value.)w",
        R"w(lane {answer} 读 lane {sources}，它们不在掩码 0x0000ffff 里、没有参与调用：读它们没有定义。)w"
        R"w(没有哪个 lane 的源超出 32 lane 的段，所以没有 lane 保留自己的值。)w"}},
      {"racy-syncwarp-descending",
       {R"w(The model runs the lanes 31 down to 0: each lane reads s[t + offset] after that lane has already )w"
        R"w(written it, so sums are added again and again and s[0] ends with {answer}, not {sum}. The loop )w"
        R"w(is a read-write race; `if (tid < offset)` or shuffles fix it.)w",
        R"w(模型让 lane 从 31 到 0 依次执行：每个 lane 读 s[t + offset] 时，那个 lane 已经写过它，部)w"
        R"w(分和被一加再加，s[0] 最后是 {answer} 而不是 {sum}。这个循环是读写竞争；加上 `if (tid < offset)` 或)w"
        R"w(改用 shuffle 即可。)w"}},
      {"shfl-down-sum-lanes",
       {R"w(After the last step only lane(s) {answer} hold {sum}: each step adds the value from offset lanes )w"
        R"w(above, so the sum gathers towards lane 0; the upper lanes hold partial sums, and lanes whose )w"
        R"w(source lies past lane 31 add their own value again.)w",
        R"w(最后一步之后只有 lane {answer} 持有 {sum}：每一步都加上 offset 个 lane 之上的值，和向 lane 0 聚)w"
        R"w(拢；高位 lane 只有部分和，源超出 lane 31 的 lane 会再加一次自己的值。)w"}},
      {"shfl-down-lane-31",
       {R"w(Lane 31's source, 31 + offset, is past the 32-lane segment at every step, so the shuffle hands )w"
        R"w(it its own v and it doubles: {steps}{answer}.)w",
        R"w(lane 31 的源 31 + offset 每一步都超出 32 lane 的段，shuffle 把它自己的 v 还给它，于是每步)w"
        R"w(翻倍：{steps}{answer}。)w"}},
      {"shfl-xor-sum-count",
       {R"w({answer} lanes hold {sum}: every step swaps in pairs, so each lane adds the partial sum of the )w"
        R"w(other half (a butterfly) and no broadcast is needed.)w",
        R"w({answer} 个 lane 持有 {sum}：每一步两两交换，每个 lane 都加上另一半的部分和（蝶形），不需)w"
        R"w(要再广播。)w"}},
      {"ballot-lane-less-5",
       {R"w(Bit n is lane n's predicate: lanes 0-4 have lane < 5, so bits 0-4 are set: {answer}.)w",
        R"w(第 n 位是 lane n 的谓词：lane 0-4 满足 lane < 5，所以第 0-4 位为 1：{answer}。)w"}},
      {"bounds-check-diverging-warps",
       {R"w({answer} of the {warps} warps: N = 1,000,001 is not a multiple of 32, so the one warp that holds )w"
        R"w(n = 1,000,000 and n = 1,000,001 has lanes on both sides of the check. Every warp before it passes )w"
        R"w(whole, and {idle} after it skips the body whole: neither diverges.)w",
        R"w(共 {warps} 个线程束中有 {answer} 个：N = 1,000,001 不是 32 的倍数，所以同时包含 n = 1,000,000 和 )w"
        R"w(n = 1,000,001 的那一个线程束，检查两边都有它的 lane。它之前的线程束整个通过，它之后的 {idle} 个)w"
        R"w(线程束整个跳过循环体：都不发散。)w"}},
  };
  return whys;
}

}  // namespace cudasync::warp_primitives
