// Parts copy-destructor and shared-mutex: the child's answer file, the ownership model of both ways
// of holding the mutex, their verdicts and sections. The child (this binary, lock --child copy)
// runs the blog's callKernel(); this process runs the fixes and the blog's fix 2.
#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "core/child_process.hpp"
#include "core/errors.hpp"
#include "core/report/text_format.hpp"
#include "techniques/lock/lesson.hpp"

namespace cudasync::lock {

namespace {

using I = std::int64_t;

std::string clean(std::string s) {
  std::replace(s.begin(), s.end(), '\t', ' ');
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

// Every number of an observation, by the name of its line in the file.
template <class Obs, class F>
void each_number(Obs& o, F f) {
  f("destructor_calls", o.destructor_calls);
  f("frees_ok", o.frees_ok);
  f("frees_failed", o.frees_failed);
  f("count1", o.count1);
  f("count2", o.count2);
  f("expected", o.expected);
  f("reused", o.reused);
  f("second_timed_out", o.second_timed_out);
}

// The pretend device: allocations are numbers; a free of a number not live is cudaErrorInvalidValue.
struct Heap {
  std::set<int> live;
  int next = 1;
  int frees = 0, frees_of_freed = 0, destructor_calls = 0;
  int alloc() {
    live.insert(next);
    return next++;
  }
  void free(int p) {
    ++frees;
    if (live.erase(p) == 0) ++frees_of_freed;
  }
  bool alive(int p) const { return live.count(p) != 0; }
};

// The blog's CudaKernelLock: a raw pointer, cudaFree in the destructor, the compiler's copy.
class ByValueLock {
 public:
  explicit ByValueLock(Heap& h) : heap_(&h), mutex_(h.alloc()) {}
  ByValueLock(const ByValueLock&) = default;
  ByValueLock& operator=(const ByValueLock&) = delete;
  ~ByValueLock() {
    ++heap_->destructor_calls;
    heap_->free(mutex_);
  }
  int ptr() const { return mutex_; }
  long long owners() const { return 1; }

 private:
  Heap* heap_;
  int mutex_;
};

// The blog's fix 2: a Mutex that frees in its destructor, held by a shared_ptr in every lock.
class Mutex {
 public:
  explicit Mutex(Heap& h) : heap_(&h), mutex(h.alloc()) {}
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;
  ~Mutex() {
    ++heap_->destructor_calls;
    heap_->free(mutex);
  }

 private:
  Heap* heap_;

 public:
  int mutex;
};
class SharedLock {
 public:
  explicit SharedLock(Heap& h) : mutex_(std::make_shared<Mutex>(h)), mutex_ptr_(mutex_->mutex) {}
  int ptr() const { return mutex_ptr_; }
  long long owners() const { return mutex_.use_count(); }

 private:
  std::shared_ptr<Mutex> mutex_;
  int mutex_ptr_;  // what a kernel would use: device code cannot call shared_ptr's members
};

// One launch statement: `copies` copies of the argument, destroyed as the statement returns; the
// kernel may still run after that, on the pointer the copies carried.
template <class Lock>
void launch(const Lock& arg, int copies, bool shared, Heap& h, OwnershipRun& r) {
  const int ptr = arg.ptr();
  long long owners = 0;
  {
    std::vector<Lock> stubs;
    stubs.reserve(static_cast<std::size_t>(copies));
    for (int k = 0; k < copies; ++k) stubs.push_back(arg);
    owners = arg.owners();
  }
  r.use_count_max = std::max(r.use_count_max, owners);
  const bool freed = !h.alive(ptr);
  r.launches_on_freed += freed ? 1 : 0;
  ++r.launches;
  r.steps.push_back(
      say("ownership.launch", {{"launch", r.launches},
                               {"copies", say(copies == 1 ? "ownership.copy" : "ownership.copies", {{"n", copies}})},
                               {"owners", shared ? say("ownership.use-count", {{"owners", owners}}) : ""},
                               {"mutex", say(freed ? "ownership.freed" : "ownership.alive")}}));
}

void owner_fact(report::Section& s) {
  s.fact("owner", say("copy.owner"), say("copy.owner-value"), report::Format::plain, say("copy.owner-note"));
}

// A run's steps as table "steps" (the child's is "child").
report::Table steps_table(const std::string& id, const std::string& title, const std::vector<CopyStep>& steps) {
  report::Table t(id, title);
  t.column("step", say("steps.step")).column("cuda", say("steps.cuda")).column("what", say("steps.what"));
  for (const auto& st : steps)
    t.row({{"step", st.what},
           {"cuda", st.error.empty() ? report::Value{report::Undefined{}} : report::Value{st.error}},
           {"what", st.detail}});
  return t;
}

void child_report(report::Section& s, const CopyOutcome& c) {
  if (c.status != CopyOutcome::Status::ok) {
    const bool answered = c.status == CopyOutcome::Status::cuda_error;
    s.check("child-answered", say("copy.child-answered"), answered,
            answered ? say("copy.child-stopped", {{"message", c.message}}) : c.message);
    return;
  }
  s.add(steps_table("child", say("copy.child-title", {{"grid", grid_text(kCopyBlocks, 1)}, {"iterations", kCopyIters}}),
                    c.seen.steps));
  s.fact("destructor-calls", say("copy.destructor-calls"), static_cast<I>(c.seen.destructor_calls),
         report::Format::count, say("copy.frees-note", {{"ok", c.seen.frees_ok}, {"failed", c.seen.frees_failed}}));
  // The child's steps are in its language, which is this run's (it is started with --lang).
  const std::string launch_2 = say("copy.step-launch", {{"launch", 2}, {"call", ""}});
  for (const auto& st : c.seen.steps)
    if (st.what.rfind(launch_2, 0) == 0)
      s.fact("error-after-launch-2", say("copy.error-after-launch-2"), st.error, report::Format::plain,
             say(st.error.rfind("cudaSuccess", 0) == 0 ? "copy.no-error" : "copy.error-of-free"));
  s.fact("child-seconds", say("copy.child-seconds"), c.seconds, report::Format::plain, say("copy.child-seconds-note"));
  s.check("child-answered", say("copy.child-answered"), true,
          say("copy.first-launch", {{"count", count_text(c.seen.count1, c.seen.expected)}}));
  s.check("freed-while-used", say("copy.freed-while-used"), c.seen.frees_ok >= 1 && c.seen.destructor_calls >= 2,
          say("copy.freed-while-used-detail", {{"calls", c.seen.destructor_calls}}));
}

report::Table ownership_table(const SharedMutexPart& p) {
  report::Table t("ownership", say("shared.ownership-title"));
  t.column("holding", say("shared.holding-column"))
      .column("frees", "cudaFree", report::Format::count)
      .column("frees-of-freed", say("shared.frees-of-freed-column"), report::Format::count)
      .column("launches-on-freed", say("shared.launches-on-freed-column"), report::Format::count)
      .column("use-count", say("shared.owners-column"), report::Format::count)
      .column("holding-id", say("id-column"));
  for (const OwnershipRun* r : {&p.by_value, &p.shared})
    t.row({{"holding", say(r->config.holding == Holding::by_value ? "shared.holding-by-value" : "shared.holding-shared")},
           {"frees", static_cast<I>(r->frees)},
           {"frees-of-freed", static_cast<I>(r->frees_of_freed)},
           {"launches-on-freed", static_cast<I>(r->launches_on_freed)},
           {"use-count", r->config.holding == Holding::shared_mutex ? report::Value{static_cast<I>(r->use_count_max)}
                                                                   : report::Value{report::Undefined{}}},
           {"holding-id", std::string(r->config.holding == Holding::by_value ? "by-value" : "shared-mutex")}});
  t.legend.push_back(say("shared.legend-columns"));
  t.legend.push_back(say("shared.legend-launch"));
  t.legend.push_back(say("shared.legend-freed"));
  return t;
}

}  // namespace

std::string format_copy_observation(const CopyObservation& o) {
  std::string s;
  for (const auto& st : o.steps) s += "step\t" + clean(st.what) + "\t" + clean(st.error) + "\t" + clean(st.detail) + "\n";
  each_number(
      o, [&](const char* key, const auto& v) { s += key + (" " + std::to_string(static_cast<long long>(v))) + "\n"; });
  return s + "end\n";
}

std::string format_copy_error(const std::string& message) { return "cuda_error " + clean(message) + "\n"; }

bool parse_copy_output(const std::string& text, CopyOutcome& out) {
  if (text.rfind("cuda_error ", 0) == 0) {
    out.status = CopyOutcome::Status::cuda_error;
    out.message = text.substr(11, text.find('\n') == std::string::npos ? std::string::npos : text.find('\n') - 11);
    return true;
  }
  CopyObservation o;
  std::istringstream in(text);
  std::string line;
  bool ended = false;
  int have = 0;
  while (std::getline(in, line)) {
    if (line == "end") {
      ended = true;
      break;
    }
    if (line.rfind("step\t", 0) == 0) {
      std::vector<std::string> f;
      std::istringstream fields(line);
      for (std::string x; std::getline(fields, x, '\t');) f.push_back(x);
      if (f.size() < 3 || f.size() > 4) return false;
      o.steps.push_back({f[1], f[2], f.size() == 4 ? f[3] : ""});
      continue;
    }
    std::istringstream kv(line);
    std::string key, rest;
    long long v = 0;
    if (!(kv >> key >> v) || kv >> rest) return false;
    bool known = false;
    each_number(o, [&](const char* name, auto& field) {
      if (key != name) return;
      field = static_cast<std::decay_t<decltype(field)>>(v);
      known = true;
    });
    if (!known) return false;
    ++have;
  }
  if (!ended || have != 8 || o.steps.empty()) return false;
  out.status = CopyOutcome::Status::ok;
  out.seen = std::move(o);
  return true;
}

CopyOutcome copy_outcome(const ChildResult& r) {
  CopyOutcome out;
  out.seconds = r.seconds;
  if (r.status == ChildResult::Status::exited || r.status == ChildResult::Status::signaled)
    if (parse_copy_output(r.output, out)) return out;
  out.status = CopyOutcome::Status::no_answer;
  out.message = r.describe();
  return out;
}

const char* holding_name(Holding h) {
  return h == Holding::by_value ? "the blog's CudaKernelLock, by value (cudaFree in its destructor)"
                                : "the blog's fix 2: a Mutex class held by std::shared_ptr";
}

OwnershipRun replay(const OwnershipConfig& c) {
  Heap h;
  OwnershipRun r;
  r.config = c;
  const int copies = std::max(1, c.copies_per_launch);
  if (c.holding == Holding::by_value) {
    {
      ByValueLock lock(h);
      r.steps.push_back(say("ownership.by-value-made"));
      for (int i = 0; i < c.launches; ++i) launch(lock, copies, false, h, r);
    }
    r.steps.push_back(say("ownership.by-value-end"));
  } else {
    std::optional<SharedLock> lock(std::in_place, h);
    r.steps.push_back(say("ownership.shared-made"));
    r.use_count_max = lock->owners();
    for (int i = 0; i < c.launches; ++i) launch(*lock, copies, true, h, r);
    if (c.copy_outlives) {
      SharedLock keeper(*lock);
      r.use_count_max = std::max(r.use_count_max, keeper.owners());
      lock.reset();
      r.steps.push_back(say(h.alive(keeper.ptr()) ? "ownership.keeper-alive" : "ownership.keeper-freed",
                            {{"owners", keeper.owners()}}));
      launch(keeper, copies, true, h, r);
    } else {
      lock.reset();
    }
    r.steps.push_back(say("ownership.shared-end"));
  }
  r.destructor_calls = h.destructor_calls;
  r.frees = h.frees;
  r.frees_of_freed = h.frees_of_freed;
  r.freed_at_end = h.live.empty();
  return r;
}

Verdict shared_mutex_counts(const SharedMutexRun& r) {
  std::string counts;
  bool exact = !r.counts.empty() && r.gave_up == 0;
  for (long long c : r.counts) {
    counts += (counts.empty() ? "" : ", ") + std::to_string(c);
    exact = exact && c == r.expected;
  }
  if (r.gave_up > 0)
    return {exact, say("shared.counts-gave-up", {{"counts", counts}, {"expected", r.expected}, {"gave-up", r.gave_up}})};
  return {exact, say("shared.counts", {{"counts", counts}, {"expected", r.expected}})};
}

Verdict shared_mutex_alive(const SharedMutexRun& r) {
  for (std::size_t i = 0; i < r.alive.size(); ++i)
    if (!r.alive[i]) return {false, say("shared.freed-after", {{"launch", i + 1}})};
  return {!r.alive.empty(), say("shared.alive-after", {{"launches", r.alive.size()}})};
}

Verdict shared_mutex_frees_once(const SharedMutexRun& r, const OwnershipRun& model) {
  const bool once = r.mutex_destructor_calls == 1 && r.frees_ok == 1 && r.frees_failed == 0 && r.owners_at_free == 0;
  std::string detail = say("shared.frees-detail",
                           {{"calls", r.mutex_destructor_calls}, {"ok", r.frees_ok}, {"failed", r.frees_failed}});
  if (r.owners_at_free > 0) detail += say("shared.freed-while-held", {{"owners", r.owners_at_free}});
  detail += say(model.frees == 1 ? "shared.model-free" : "shared.model-frees", {{"frees", model.frees}});
  return {once && model.frees_once(), detail};
}

report::Section copy_destructor_section(const CopyPart& p, bool gpu_run) {
  report::Section s("copy-destructor", say("copy.title"));
  s.paragraph(say("copy.about"));
  s.paragraph(say("copy.about-child"));
  if (!gpu_run) {
    s.note(say("copy.needs-gpu"));
    owner_fact(s);
    return s;
  }
  if (p.child) child_report(s, *p.child);
  if (!p.fixes_error.empty()) {
    s.check("still-runs-kernels", say("copy.still-runs-kernels"), false, p.fixes_error);
    return s;
  }
  report::Table f("fixes", say("copy.fixes-title", {{"grid", grid_text(kCopyBlocks, 1)}, {"iterations", kCopyIters}}));
  f.column("fix", say("copy.fix-column"))
      .column("count1", say("copy.launch-column", {{"launch", 1}}), report::Format::count)
      .column("count2", say("copy.launch-column", {{"launch", 2}}), report::Format::count)
      .column("frees", say("copy.frees-column"), report::Format::count)
      .column("frees-failed", say("copy.frees-failed-column"), report::Format::count)
      .column("copies", say("copy.copies-column"), report::Format::count);
  for (const auto& x : p.fixes)
    f.row({{"fix", x.name},
           {"count1", static_cast<I>(x.count1)},
           {"count2", static_cast<I>(x.count2)},
           {"frees", static_cast<I>(x.frees)},
           {"frees-failed", static_cast<I>(x.frees_failed)},
           {"copies", x.copies_made ? report::Value{static_cast<I>(x.copies_made)} : report::Value{report::Undefined{}}}},
          x.ok() ? report::RowMark::none : report::RowMark::mismatch);
  f.legend.push_back(say("copy.copies-legend"));
  s.add(std::move(f));
  bool all = !p.fixes.empty();
  for (std::size_t i = 0; i < p.fixes.size(); ++i) {
    const FixRun& x = p.fixes[i];
    all = all && x.ok();
    s.check("fix-" + std::to_string(i + 1) + "-frees-once", say("copy.fix-frees-once", {{"fix", x.name}}), x.ok(),
            say("copy.fix-detail",
                {{"count1", x.count1}, {"count2", x.count2}, {"expected", x.expected}, {"frees", x.frees}}));
  }
  s.check("still-runs-kernels", say("copy.still-runs-kernels"), all,
          say(all ? "copy.fixes-completed" : "copy.a-fix-failed"));
  owner_fact(s);
  s.fact("verdict", say("verdict"), say("copy.verdict"));
  return s;
}

report::Section copy_destructor_part(Run& run) {
  CopyPart p;
  if (run.copy_child) p.child = copy_outcome(run.copy_child->finish());
  else p.child = run.copy_start_failed;
  if (run.ctx.gpu) {
    try {
      p.fixes = gpu_copy_fixes(kCopyBlocks, kCopyIters, kCopyDeadlineNs);
    } catch (const Error& e) {
      p.fixes_error = e.what();
    }
  }
  return copy_destructor_section(p, run.ctx.gpu);
}

std::string copy_child(Run&) {
  try {
    return format_copy_observation(gpu_copy_bug(kCopyBlocks, kCopyIters, kCopyDeadlineNs));
  } catch (const Error& e) {
    return format_copy_error(e.what());
  }
}

report::Section shared_mutex_section(const SharedMutexPart& p, bool gpu_run) {
  report::Section s("shared-mutex", say("shared.title"));
  s.paragraph(say("shared.about"));
  s.paragraph(say("shared.about-run", {{"grid", grid_text(p.blocks, 1)}, {"iterations", p.iters}}));
  s.add(ownership_table(p));
  s.check("model-by-value-frees-early", say("shared.check-by-value"),
          p.by_value.launches_on_freed > 0 && p.by_value.frees_of_freed > 0,
          say("shared.check-by-value-detail", {{"frees", p.by_value.frees},
                                               {"of-freed", p.by_value.frees_of_freed},
                                               {"launches", p.by_value.launches_on_freed}}));
  s.check("model-shared-frees-once", say("shared.check-shared"), p.shared.frees_once(),
          say("shared.check-shared-detail", {{"frees", p.shared.frees},
                                             {"launches", p.shared.launches_on_freed},
                                             {"owners", p.shared.use_count_max}}));
  if (!gpu_run) {
    s.note(say("shared.needs-gpu"));
    s.fact("verdict", say("verdict"), say("shared.verdict-model"));
    return s;
  }
  if (!p.gpu) {
    s.check("gpu-ran", say("shared.gpu-ran"), false, p.gpu_error);
    return s;
  }
  const SharedMutexRun& g = *p.gpu;
  s.add(steps_table("steps", say("shared.steps-title"), g.steps));
  std::string copies;
  for (int c : g.copies) copies += (copies.empty() ? "" : ", ") + std::to_string(c);
  s.fact("copies", say("shared.copies"), copies, report::Format::plain, say("shared.copies-note"));
  s.fact("use-count-max", say("shared.use-count-max"), static_cast<I>(g.use_count_max), report::Format::count,
         say("shared.use-count-max-note"));
  const Verdict counts = shared_mutex_counts(g), alive = shared_mutex_alive(g), once = shared_mutex_frees_once(g, p.shared);
  s.check("count-exact", say("shared.count-exact"), counts.passed, counts.detail);
  s.check("mutex-alive", say("shared.mutex-alive"), alive.passed, alive.detail);
  s.agreement("gpu-agrees", say("shared.gpu-agrees"), once.passed, once.detail);
  s.fact("verdict", say("verdict"),
         say(counts.passed && alive.passed && once.passed ? "shared.verdict-fixed" : "shared.verdict-not-fixed"));
  return s;
}

report::Section shared_mutex_part(Run& run) {
  SharedMutexPart p;
  p.by_value = replay({Holding::by_value, 2, 1, false});
  p.shared = replay({Holding::shared_mutex, 2, 1, true});
  if (run.ctx.gpu) {
    try {
      p.gpu = gpu_shared_mutex(p.blocks, p.iters, deadline_for(static_cast<long long>(p.blocks) * p.iters));
    } catch (const Error& e) {
      p.gpu_error = e.what();
    }
  }
  return shared_mutex_section(p, run.ctx.gpu);
}

}  // namespace cudasync::lock
