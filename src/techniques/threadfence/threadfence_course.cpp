// threadfence's exercises: every answer is read from a run of the lesson (the PTX memory model's
// allowed outcomes, the WorkQueue model), never stored.
#include "techniques/threadfence/threadfence_course.hpp"

#include <stdexcept>
#include <string>

#include "core/course/report_read.hpp"

namespace cudasync::threadfence {

namespace {

using course::Answer;
using course::AnswerKind;
using course::Exercise;
using course::LessonRunner;
using std::to_string;

const char* kLesson = "threadfence";

bool has_outcome(const std::string& allowed, const std::string& outcome) {
  return (" " + allowed + " ").find(" " + outcome + " ") != std::string::npos;
}

// The outcomes the PTX model allows in row `row` of the scope part's table.
std::string scope_allowed(LessonRunner& r, const std::string& fence, const std::string& sides) {
  const report::Report rep = r.run(kLesson, {"--part", "scope", "--iterations", "1000"});
  const report::Table& t = course::table(rep, "scope", "outcomes");
  for (std::size_t i = 0; i < t.rows.size(); ++i)
    if (course::as_text(t.cell(i, "fence")) == fence && course::as_text(t.cell(i, "sides-in")) == sides)
      return course::as_text(t.cell(i, "allowed"));
  throw std::logic_error("threadfence course: no scope row " + fence + " / " + sides);
}

Exercise block_fence_two_blocks() {
  Exercise e;
  e.number = 1;
  e.id = "mp-block-fence-two-blocks";
  e.format = {AnswerKind::choice, {"yes", "no"}};
  e.question = {"Message passing (mp) with the producer and the consumer in different blocks and "
                "__threadfence_block() on both sides: does the PTX memory model allow the stale read (flag seen, "
                "old data: outcome 10)? Answer yes or no.",
                "消息传递（mp），生产者和消费者在不同的块里，两边都用 __threadfence_block()：PTX 内存模型允许"
                "读到旧数据吗（看到了标志却读到旧数据：结果 10）？回答 yes 或 no。"};
  e.hint = {"Two fences synchronize only when each one's scope contains the other thread.",
            "只有当两个 fence 的作用域都包含对方线程时，它们才能同步。"};
  e.compute = [](LessonRunner& r) {
    const std::string allowed = scope_allowed(r, "block", "two blocks");
    const bool yes = has_outcome(allowed, "10");
    return Answer{yes ? "yes" : "no",
                  {"the model allows " + allowed + ". __threadfence_block() is fence.sc.cta: its scope is its own "
                   "block, so across two blocks the two fences are not morally strong and do not synchronize.",
                   "模型允许的结果：" + allowed + "。__threadfence_block() 是 fence.sc.cta，作用域只是自己的块；"
                   "跨两个块时两个 fence 不是 morally strong，不能同步。"}};
  };
  return e;
}

Exercise block_fence_one_block() {
  Exercise e;
  e.number = 2;
  e.id = "mp-block-fence-one-block";
  e.format = {AnswerKind::choice, {"yes", "no"}};
  e.question = {"The same mp test with __threadfence_block() on both sides, but producer and consumer in the same "
                "block: is the stale read (10) allowed? Answer yes or no.",
                "同样的 mp 测试，两边都用 __threadfence_block()，但生产者和消费者在同一个块里：读到旧数据（10）"
                "被允许吗？回答 yes 或 no。"};
  e.hint = {"Now the block scope contains both threads.", "现在块作用域包含了两个线程。"};
  e.compute = [](LessonRunner& r) {
    const std::string allowed = scope_allowed(r, "block", "one block");
    const bool yes = has_outcome(allowed, "10");
    return Answer{yes ? "yes" : "no",
                  {"the model allows only " + allowed + ": inside one block both block-scoped fences contain the "
                   "other thread, so they synchronize and the stale read is forbidden.",
                   "模型只允许 " + allowed + "：在同一个块里，两个块作用域的 fence 都包含对方线程，能够同步，"
                   "读到旧数据被禁止。"}};
  };
  return e;
}

Exercise sb_release_acquire() {
  Exercise e;
  e.number = 3;
  e.id = "sb-release-acquire";
  e.format = {AnswerKind::choice, {"yes", "no"}};
  e.question = {"Store buffering (sb) with cuda::atomic_ref release stores and acquire loads: is r0 = r1 = 0 "
                "(outcome 00) allowed? Answer yes or no.",
                "存储缓冲（sb），用 cuda::atomic_ref 的 release 存储和 acquire 读取：r0 = r1 = 0（结果 00）"
                "被允许吗？回答 yes 或 no。"};
  e.hint = {"A release orders what comes before it, an acquire what comes after it. What orders a release store "
            "before a later acquire load of another location?",
            "release 约束它之前的访问，acquire 约束它之后的访问。什么能让 release 存储排在之后对另一地址的 "
            "acquire 读取之前？"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "litmus", "--test", "sb", "--fence", "rel-acq",
                                               "--iterations", "1000"});
    const std::string allowed = course::as_text(course::table(rep, "litmus", "outcomes").cell(0, "allowed"));
    const bool yes = has_outcome(allowed, "00");
    return Answer{yes ? "yes" : "no",
                  {"the model allows " + allowed + ": nothing orders a release store before a later acquire load of "
                   "another location, so both loads may read 0. Only a __threadfence() (fence.sc) between them "
                   "forbids it.",
                   "模型允许 " + allowed + "：没有什么能让 release 存储排在之后对另一地址的 acquire 读取之前，"
                   "两个读取都可能读到 0。只有在它们之间放 __threadfence()（fence.sc）才能禁止。"}};
  };
  return e;
}

Exercise lb_device() {
  Exercise e;
  e.number = 4;
  e.id = "lb-device-forbidden";
  e.format = {AnswerKind::choice, {"00", "01", "10", "11"}};
  e.question = {"Load buffering (lb) with __threadfence() on both sides: which outcome r0 r1 does the PTX model "
                "forbid? Answer 00, 01, 10 or 11.",
                "载入缓冲（lb），两边都用 __threadfence()：PTX 模型禁止哪个结果 r0 r1？回答 00、01、10 或 11。"};
  e.hint = {"Each side reads, fences, then writes what the other side reads.", "每一边先读、再 fence、再写对方要读的位置。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "litmus", "--test", "lb", "--fence", "device",
                                               "--iterations", "1000"});
    const std::string allowed = course::as_text(course::table(rep, "litmus", "outcomes").cell(0, "allowed"));
    std::string forbidden;
    for (const char* o : {"00", "01", "10", "11"})
      if (!has_outcome(allowed, o)) forbidden += (forbidden.empty() ? "" : " ") + std::string(o);
    return Answer{forbidden, {"the model allows " + allowed + " and forbids " + forbidden + ": each read would have "
                              "to see a store that its own fence orders after it (a causality cycle).",
                              "模型允许 " + allowed + "，禁止 " + forbidden + "：否则每次读取都要看到一个被它自己的 "
                              "fence 排在它之后的存储（因果环）。"}};
  };
  return e;
}

Exercise host_fence() {
  Exercise e;
  e.number = 5;
  e.id = "host-observer-fence";
  e.format = {AnswerKind::choice, {"none", "threadfence", "threadfence_system"}};
  e.question = {"A CPU thread waits for a flag the GPU sets after writing data to mapped host memory, then reads "
                "the data. Which GPU-side fence makes the stale read forbidden: none, threadfence "
                "(__threadfence()) or threadfence_system (__threadfence_system())?",
                "CPU 线程等待 GPU 在写完映射主机内存里的数据后设置的标志，然后读数据。GPU 一侧用哪个 fence "
                "才能禁止读到旧数据：none、threadfence（__threadfence()）还是 threadfence_system"
                "（__threadfence_system()）？"};
  e.hint = {"Which fence's scope contains a thread that is not on the GPU?", "哪个 fence 的作用域包含不在 GPU 上的线程？"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "host-observer"});
    const report::Table& t = course::table(rep, "host-observer", "rounds");
    std::string v = "none", ptx;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const std::string verdict = course::as_text(t.cell(i, "verdict"));
      if (verdict.rfind("forbidden", 0) != 0) continue;
      const std::string fence = course::as_text(t.cell(i, "fence"));
      v = fence == "__threadfence_system()" ? "threadfence_system" : fence == "__threadfence()" ? "threadfence" : "none";
      ptx = course::as_text(t.cell(i, "ptx"));
      break;
    }
    return Answer{v, {"only " + ptx + " forbids it: __threadfence() is fence.sc.gpu, whose scope does not contain "
                      "the host thread; __threadfence_system() is fence.sc.sys, whose scope does.",
                      "只有 " + ptx + " 能禁止：__threadfence() 是 fence.sc.gpu，作用域不包含主机线程；"
                      "__threadfence_system() 是 fence.sc.sys，作用域包含它。"}};
  };
  return e;
}

Exercise work_queue() {
  Exercise e;
  e.number = 6;
  e.id = "work-queue-slowest-block";
  e.question = {"The WorkQueue part's default run (16 blocks, 128 items of uneven cost drawn with --seed 1): in "
                "the model, how many units of work does the slowest block do when blocks fetch items with "
                "atomicAdd? (cudasync threadfence --part work-queue shows the a-priori split beside it.)",
                "WorkQueue 部分的默认运行（16 个块，128 个代价不均、由 --seed 1 抽取的任务）：在模型里，"
                "各块用 atomicAdd 取任务时，最慢的块做了多少单位的工作？（cudasync threadfence --part work-queue "
                "同时给出事先分配的结果。）"};
  e.hint = {"Greedy fetching never leaves a block more than the average plus the largest item.",
            "贪心地取任务时，没有哪个块的工作量会超过平均值加上最大的一个任务。"};
  e.compute = [](LessonRunner& r) {
    const report::Report rep = r.run(kLesson, {"--part", "work-queue"});
    const std::string q = to_string(course::as_int(course::fact(rep, "work-queue", "slowest-queue-model")));
    const std::string a = to_string(course::as_int(course::fact(rep, "work-queue", "slowest-a-priori-model")));
    return Answer{q, {"the slowest block does " + q + " units with the queue, against " + a + " with the fixed "
                      "assignment: a block that finishes early takes the next item.",
                      "用队列时最慢的块做 " + q + " 个单位，固定分配时是 " + a + "：先做完的块去取下一个任务。"}};
  };
  return e;
}

}  // namespace

const course::LessonCourse& course() {
  static const course::LessonCourse c{
      {"--part", "litmus", "--test", "mp", "--iterations", "10000"},
      {"A fence makes nobody wait and publishes nothing: it orders its own thread's accesses, and it works only in "
       "pairs, a fence (or release) on the writer's side and a fence (or acquire) on the reader's, whose scopes "
       "contain each other.",
       "fence 不让任何人等待，也不发布任何东西：它只约束本线程自己的访问顺序，而且必须成对起作用：写方一个 fence"
       "（或 release），读方一个 fence（或 acquire），两者的作用域互相包含。"},
      {block_fence_two_blocks(), block_fence_one_block(), sb_release_acquire(), lb_device(), host_fence(),
       work_queue()}};
  return c;
}

}  // namespace cudasync::threadfence
