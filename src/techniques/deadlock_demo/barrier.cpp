// The barrier parts, divergent-syncthreads and syncwarp-mask: the barrier as the programming guide
// specifies it (the model), run on the GPU in a child process (a hardware barrier has no deadline),
// its answer file, and compute-sanitizer's synccheck for --sanitize.
#include "techniques/deadlock_demo/lesson.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

#include "core/child_process.hpp"
#include "core/number_list.hpp"
#include "core/parts/child.hpp"
#include "core/report/text_format.hpp"

namespace cudasync::deadlock_demo {

using report::Format;
using report::Section;

namespace {

// The command a student can type: "compute-sanitizer --tool synccheck cudasync deadlock-demo --child ..."
std::string synccheck_command_text() {
  return "compute-sanitizer --tool synccheck cudasync deadlock-demo --child divergent-syncthreads --child-out FILE "
         "--backend gpu";
}

std::string one_line(std::string m) {
  std::replace(m.begin(), m.end(), '\n', ' ');
  return m;
}

bool complete(const BarrierObservation& o, const bool (&have)[10]) {
  if (!std::all_of(std::begin(have), std::end(have), [](bool b) { return b; })) return false;
  const auto n = static_cast<std::size_t>(o.threads);
  return o.threads > 0 && o.present >= 0 && o.present <= o.threads && o.arrive_ns.size() == n &&
         o.leave_ns.size() == n && o.progress_ns.size() == n && o.state.size() == n;
}

struct BarrierCase {
  int present = 0;  // threads (lanes) that reach the barrier
  BarrierVariant variant = BarrierVariant::rescue;
  ScenarioModel model;
};

// The cases in the order the child runs them: the one that may hang for good last.
std::vector<BarrierCase> barrier_cases(bool syncwarp) {
  const std::vector<std::pair<int, BarrierVariant>> cases =
      syncwarp ? std::vector<std::pair<int, BarrierVariant>>{{kSyncwarpPresent, BarrierVariant::rescue}}
               : std::vector<std::pair<int, BarrierVariant>>{{kSyncPresentWholeWarps, BarrierVariant::rescue},
                                                             {kSyncPresentWholeWarps, BarrierVariant::if_else},
                                                             {kSyncPresent, BarrierVariant::rescue}};
  std::vector<BarrierCase> out;
  for (const auto& [present, variant] : cases) out.push_back({present, variant, barrier_model(syncwarp, present, variant)});
  return out;
}

// "whole warps", "if / else", "inside a warp", "lanes 0-15": short, for fact titles.
std::string case_name(bool syncwarp, const BarrierCase& c) {
  if (syncwarp) return span_text(0, c.present - 1, "lane");
  if (c.variant == BarrierVariant::if_else) return "if / else";
  return say(c.present % kWarpSize == 0 ? "barrier.whole-warps" : "barrier.inside-a-warp");
}

// The same as an id: "whole-warps", "if-else", "inside-a-warp", "lanes-0-15".
std::string case_id(bool syncwarp, const BarrierCase& c) {
  if (syncwarp) return "lanes-0-" + std::to_string(c.present - 1);
  if (c.variant == BarrierVariant::if_else) return "if-else";
  return c.present % kWarpSize == 0 ? "whole-warps" : "inside-a-warp";
}

// The same, in full, for table titles.
std::string case_title(bool syncwarp, const BarrierCase& c) {
  const int last = c.present - 1;
  if (syncwarp) return say("barrier.case-syncwarp", {{"last", last}});
  if (c.variant == BarrierVariant::if_else) return say("barrier.case-if-else", {{"last", last}, {"present", c.present}});
  return say("barrier.case-syncthreads", {{"name", case_name(false, c)}, {"last", last}});
}

// What one case did on this GPU, from the child's records.
void add_observed_case(Section& s, const BarrierObservation& o, const BarrierCase& c, bool sw) {
  const Describe describe = barrier_child_describe(sw, c.variant);
  const std::string noun = sw ? "lane" : "thread", name = case_name(sw, c), id = case_id(sw, c);
  const auto records = barrier_records(o);
  add_gpu_ranges(s, records, describe, noun, "gpu-" + id, say("barrier.gpu-case", {{"case", case_title(sw, c)}}),
                 "gpu-" + id, say("barrier.gpu-name", {{"name", name}}));
  if (o.hung)
    s.fact("hung-" + id, say("barrier.kernel-name", {{"name", name}}), say("barrier.never-ended"), Format::plain,
           say("barrier.hung-note", {{"ms", o.watched_ms}}));
  const bool specified = as_specified(o, c.model, describe);
  s.fact("as-specified-" + id, say("barrier.as-specified", {{"name", name}}), specified, Format::plain,
         say(specified ? "barrier.as-specified-yes" : "barrier.as-specified-no"));
}

void add_child(Section& s, const StartedChild& started, const std::vector<BarrierCase>& cases, bool sw) {
  if (!started.process) {
    s.check("child-started", say("barrier.child-ran-check"), false, say("barrier.child-not-started", {{"error", started.error}}));
    return;
  }
  const ChildOutcome c = child_outcome(started.process->finish());
  const std::string seconds = report::fixed(c.seconds, 3);
  s.fact("child", say("barrier.child"), std::string(to_string(c.status)), Format::plain,
         c.status == ChildOutcome::Status::ok
             ? say("barrier.child-time", {{"seconds", seconds}})
             : say("barrier.child-time-message", {{"message", c.message}, {"seconds", seconds}}));
  s.check("child-ended", say("barrier.child-ended"), child_ended(c));
  if (c.status != ChildOutcome::Status::ok) return;
  for (std::size_t k = 0; k < c.seen.size() && k < cases.size(); ++k) add_observed_case(s, c.seen[k], cases[k], sw);
  if (c.seen.size() < cases.size()) s.note(say("barrier.cases-not-run"));
  s.fact("child-health", say("barrier.child-health"),
         say(!c.health.ran ? "barrier.health-not-run" : c.health.ok ? "health.passed" : "health.failed"), Format::plain,
         c.health.detail);
}

void add_sanitizer(Section& s, Run& run) {
  if (!run.sanitizer_missing.empty()) {
    s.fact("sanitize", "--sanitize", say("barrier.sanitizer-not-found"), Format::plain,
           say("barrier.looked-in", {{"where", run.sanitizer_missing}}));
    s.note(say("barrier.sanitizer-missing-note", {{"where", run.sanitizer_missing}}));
    return;
  }
  if (!run.sanitizer) return;
  const SanitizerRun r = run.sanitizer->finish();
  s.fact("sanitize", say("barrier.sanitize-ran"), r.command, Format::plain, r.result.describe());
  s.fact("sanitize-summary", say("barrier.sanitize-says"), r.summary.empty() ? say("barrier.no-summary") : r.summary);
  report::Table t("synccheck", say("barrier.synccheck-title"));
  t.column("line", say("barrier.line"));
  std::istringstream in(r.log);
  int shown = 0, total = 0;
  for (std::string line; std::getline(in, line); ++total)
    if (shown < 40) t.row({{"line", line}}), ++shown;
  if (total > shown) t.legend.push_back(say("barrier.more-lines", {{"count", total - shown}}));
  s.add(std::move(t));
}

}  // namespace

std::string format_observations(const std::vector<BarrierObservation>& cases, const Health& health) {
  std::string s = "ok\n";
  for (const auto& o : cases) {
    s += "case\n";
    s += "threads " + std::to_string(o.threads) + "\n";
    s += "present " + std::to_string(o.present) + "\n";
    s += "variant " + std::to_string(o.variant) + "\n";
    s += "deadline_ns " + std::to_string(o.deadline_ns) + "\n";
    s += std::string("hung ") + (o.hung ? "1" : "0") + "\n";
    s += "watched_ms " + std::to_string(o.watched_ms) + "\n";
    s += "arrive_ns " + join_numbers(o.arrive_ns) + "\n";
    s += "leave_ns " + join_numbers(o.leave_ns) + "\n";
    s += "progress_ns " + join_numbers(o.progress_ns) + "\n";
    s += "state " + join_numbers(o.state) + "\n";
  }
  s += std::string("health ") + (!health.ran ? "none " : health.ok ? "ok " : "fail ") + one_line(health.detail) + "\n";
  return s;
}

std::string format_child_error(const std::string& message) { return "cuda_error " + one_line(message) + "\n"; }

const char* to_string(ChildOutcome::Status s) {
  switch (s) {
    case ChildOutcome::Status::ok: return "ok";
    case ChildOutcome::Status::cuda_error: return "cuda_error";
    case ChildOutcome::Status::timeout: return "timeout";
    case ChildOutcome::Status::no_answer: return "no_answer";
  }
  return "no_answer";
}

bool parse_child_output(const std::string& text, ChildOutcome& out) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line)) return false;
  if (line.rfind("cuda_error ", 0) == 0) {
    out.status = ChildOutcome::Status::cuda_error;
    out.message = line.substr(11);
    return true;
  }
  if (line != "ok") return false;
  std::vector<BarrierObservation> cases;
  Health health;
  bool have[10] = {};
  bool in_case = false, have_health = false;
  while (std::getline(in, line)) {
    const auto sp = line.find(' ');
    const std::string key = line.substr(0, sp), value = sp == std::string::npos ? "" : line.substr(sp + 1);
    if (key == "case") {
      if (in_case && !complete(cases.back(), have)) return false;
      cases.emplace_back();
      std::fill(std::begin(have), std::end(have), false);
      in_case = true;
      continue;
    }
    if (key == "health") {
      if (in_case && !complete(cases.back(), have)) return false;
      in_case = false;
      const auto word_end = value.find(' ');
      const std::string word = value.substr(0, word_end);
      if (word != "ok" && word != "fail" && word != "none") return false;
      health.ran = word != "none";
      health.ok = word == "ok";
      health.detail = word_end == std::string::npos ? "" : value.substr(word_end + 1);
      have_health = true;
      continue;
    }
    if (!in_case) return false;
    BarrierObservation& o = cases.back();
    std::vector<long long> nums;
    if (!split_numbers(value, nums)) return false;
    const bool one = nums.size() == 1;
    if (key == "threads" && one) o.threads = static_cast<int>(nums[0]), have[0] = true;
    else if (key == "present" && one) o.present = static_cast<int>(nums[0]), have[1] = true;
    else if (key == "deadline_ns" && one) o.deadline_ns = nums[0], have[2] = true;
    else if (key == "hung" && one) o.hung = nums[0] != 0, have[3] = true;
    else if (key == "watched_ms" && one) o.watched_ms = nums[0], have[4] = true;
    else if (key == "arrive_ns") o.arrive_ns = nums, have[5] = true;
    else if (key == "leave_ns") o.leave_ns = nums, have[6] = true;
    else if (key == "progress_ns") o.progress_ns = nums, have[7] = true;
    else if (key == "state") o.state.assign(nums.begin(), nums.end()), have[8] = true;
    else if (key == "variant" && one && (nums[0] == 0 || nums[0] == 1)) o.variant = static_cast<int>(nums[0]), have[9] = true;
    else return false;
  }
  if (cases.empty() || !have_health || in_case) return false;
  out.status = ChildOutcome::Status::ok;
  out.seen = std::move(cases);
  out.health = health;
  return true;
}

ChildOutcome child_outcome(const ChildResult& r) {
  ChildOutcome out;
  out.seconds = r.seconds;
  if (r.status == ChildResult::Status::timeout) {
    out.status = ChildOutcome::Status::timeout;
    out.message = r.message;
    return out;
  }
  if (r.status == ChildResult::Status::exited && parse_child_output(r.output, out)) return out;
  out.status = ChildOutcome::Status::no_answer;
  out.message = r.describe();
  return out;
}

std::chrono::milliseconds child_timeout(int deadline_ms, bool sanitized) {
  // CUDA start-up takes a few hundred ms, the kernel one deadline; the sanitizer slows both down.
  return std::chrono::milliseconds((sanitized ? 60000 : 20000) + 4 * deadline_ms);
}

std::vector<std::string> barrier_child_options(int deadline_ms, bool sanitized) {
  return {"--deadline-ms", std::to_string(deadline_ms), "--child-grace-ms",
          std::to_string(sanitized ? kSanitizedGraceMs : kChildGraceMs)};
}

SanitizerChild::SanitizerChild(const std::string& sanitizer, const RunContext& ctx, int deadline_ms) : tool_(sanitizer) {
  const char* dir = std::getenv("TMPDIR");
  std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/cudasync_synccheck_log_XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  const int fd = mkstemp(buf.data());
  if (fd < 0) throw std::runtime_error("cannot create a temporary file for the sanitizer's log");
  close(fd);
  log_path_ = buf.data();
  std::vector<std::string> args = {"--tool", "synccheck", "--log-file", log_path_, self_executable()};
  for (auto& a : parts::child_args(ctx, "deadlock-demo", "divergent-syncthreads", barrier_child_options(deadline_ms, true)))
    args.push_back(a);
  command_ = sanitizer;
  for (const auto& a : args) command_ += " " + (a == log_path_ ? std::string("LOG") : a == ChildProcess::kOutToken ? "FILE" : a);
  child_ = std::make_unique<ChildProcess>(sanitizer, args, child_timeout(deadline_ms, true), "synccheck");
}

SanitizerChild::~SanitizerChild() {
  child_.reset();
  std::remove(log_path_.c_str());
}

SanitizerRun SanitizerChild::finish() {
  SanitizerRun s;
  s.found = true;
  s.tool = tool_;
  s.command = command_;
  s.result = child_->finish();
  s.log = read_all(log_path_);
  std::istringstream in(s.log);
  for (std::string line; std::getline(in, line);)
    if (const auto p = line.find("ERROR SUMMARY"); p != std::string::npos) s.summary = line.substr(p);
  return s;
}

// ---- divergent-syncthreads and syncwarp-mask ----------------------------------------------------------

ScenarioModel barrier_model(bool syncwarp, int present, BarrierVariant variant) {
  ScenarioModel m;
  if (variant == BarrierVariant::if_else) {
    const std::string in = span_text(0, present - 1, "thread"), out = span_text(present, kSyncBlockThreads - 1, "thread");
    m.steps = {
        {in, say("barrier-model.if-branch")},
        {out, say("barrier-model.else-branch")},
        {say("barrier-model.as-specified"), say("barrier-model.if-else-undefined", {{"threads", kSyncBlockThreads}})},
    };
    for (int t = 0; t < kSyncBlockThreads; ++t)
      m.records.push_back(t < present ? rec(State::finished, -1, 1) : rec(State::finished, -1, 7));
    m.fix_steps = {{say("barrier-model.the-fix"), say("barrier-model.if-else-fix")}};
    m.fix_completes = true;
    m.fix_result = say("barrier-model.if-else-fix-result");
    return m;
  }
  m.deadlock = true;
  const int threads = syncwarp ? kWarpSize : kSyncBlockThreads;
  const std::string noun = syncwarp ? "lane" : "thread";
  const std::string call = syncwarp ? "__syncwarp(0xffffffff)" : "__syncthreads()";
  const std::string rescue = syncwarp ? call : say("barrier-model.unaligned");
  const std::string in = span_text(0, present - 1, noun), out = span_text(present, threads - 1, noun);
  m.steps = {
      {in, say("barrier-model.reach", {{"call", call}, {"present", present}, {"threads", threads}})},
      {out, say("barrier-model.wait-flag", {{"in", in}})},
      {say("model.deadlock"), say("barrier-model.deadlock", {{"noun", noun_word(noun)}})},
      {say("barrier-model.rescue"), say("barrier-model.rescue-what", {{"out", out}, {"rescue", rescue}, {"threads", threads}})},
  };
  const int a = m.graph.add_node(say("barrier-model.node-at-barrier", {{"who", in}}));
  const int b = m.graph.add_node(say("barrier-model.node-spinning", {{"who", out}}));
  m.graph.add_edge(a, b, say("barrier-model.edge-barrier", {{"present", present}, {"threads", threads}}));
  m.graph.add_edge(b, a, say("barrier-model.edge-flag"));
  m.waits = {say("barrier-model.waits-barrier", {{"in", in}, {"out", out}, {"call", call}, {"present", present}, {"threads", threads}}),
             say("barrier-model.waits-flag", {{"out", out}, {"in", in}})};
  for (int t = 0; t < threads; ++t) m.records.push_back(t < present ? rec(State::finished, -1, 1) : rec(State::gave_up));
  m.fix_steps = {{say("barrier-model.the-fix"),
                  say("barrier-model.fix", {{"call", call}, {"noun", noun_word(noun)}, {"nouns", nouns_word(noun)}})}};
  m.fix_completes = true;
  m.fix_result = say(syncwarp ? "barrier-model.fix-result-lane" : "barrier-model.fix-result-thread");
  return m;
}

std::vector<Record> barrier_records(const BarrierObservation& o) {
  // The rescue began when the first absent thread gave up (it records the time just before its call).
  long long rescue = -1;
  for (int t = o.present; t < o.threads; ++t) {
    const long long at = o.arrive_ns[static_cast<std::size_t>(t)];
    if (at >= 0 && (rescue < 0 || at < rescue)) rescue = at;
  }
  const bool if_else = o.variant == static_cast<int>(BarrierVariant::if_else);
  std::vector<Record> out;
  for (int t = 0; t < o.threads; ++t) {
    const auto i = static_cast<std::size_t>(t);
    const long long arrive = o.arrive_ns[i], leave = o.leave_ns[i];
    const auto st = static_cast<BarrierState>(o.state[i]);
    Record r = rec(State::never_started);
    r.start_ns = arrive;
    r.end_ns = leave;
    const auto set = [&r](State state, long long seen) {
      r.state = static_cast<int>(state);
      r.seen = seen;
    };
    if (t >= o.present && if_else) {
      if (st == BarrierState::rescued) set(State::finished, 7);
      else if (arrive >= 0) set(State::gave_up, 3);
    } else if (t < o.present) {
      if (st == BarrierState::passed) set(State::finished, rescue >= 0 && leave >= rescue ? 1 : 0);
      else if (arrive >= 0) set(State::gave_up, 3);
    } else if (st == BarrierState::saw_flag) {
      set(State::finished, 2);
      r.end_ns = -1;
    } else if (st == BarrierState::rescued) {
      set(State::gave_up, 0);
    } else if (arrive >= 0) {
      set(State::gave_up, 5);
      r.end_ns = -1;
    } else if (o.progress_ns[i] >= 0) {
      set(State::gave_up, 4);
      r.start_ns = 0;
      r.end_ns = o.progress_ns[i];  // the last time it was seen spinning
    }
    out.push_back(r);
  }
  return out;
}

Describe barrier_child_describe(bool syncwarp, BarrierVariant variant) {
  const bool if_else = variant == BarrierVariant::if_else;
  const std::string call = syncwarp ? "__syncwarp(0xffffffff)" : if_else ? say("describe.if-branch-call") : "__syncthreads()";
  const std::string rescue = syncwarp ? call : "barrier.sync 0";
  const std::string waited = say(if_else ? "describe.else-arrived" : "describe.the-rescue");
  const std::string early = say(if_else ? "describe.else-arrived" : "describe.rest-arrived");
  return [call, rescue, waited, early](int, const Record& r) -> std::string {
    switch (static_cast<State>(r.state)) {
      case State::finished:
        if (r.seen == 2) return say("describe.saw-flag", {{"call", call}});
        if (r.seen == 7) return say("describe.else-left");
        return r.seen == 1 ? say("describe.waited-in", {{"call", call}, {"until", waited}})
                           : say("describe.left-before", {{"call", call}, {"before", early}});
      case State::gave_up:
        switch (r.seen) {
          case 3: return say("describe.never-left", {{"call", call}});
          case 4: return say("describe.stopped-running");
          case 5: return say("describe.rescue-never-left", {{"rescue", rescue}});
          default: return say("describe.rescued", {{"rescue", rescue}});
        }
      case State::late: return say("state.late");
      case State::never_started: return say("describe.recorded-nothing");
    }
    return "";
  };
}

// Parts divergent-syncthreads and syncwarp-mask: a hardware barrier reached by part of a block (or
// warp), run in a child process (the table's children), and the child's side of it.

Section barrier_part(Run& run, bool sw) {
  const std::string noun = sw ? "lane" : "thread";
  Section s(sw ? "syncwarp-mask" : "divergent-syncthreads", "");
  if (sw) {
    s.title = say("barrier.syncwarp-title");
    s.paragraph(say("barrier.syncwarp-about"));
  } else {
    s.title = say("barrier.syncthreads-title");
    s.paragraph(say("barrier.syncthreads-about"));
  }
  s.paragraph(say(sw ? "barrier.child-about-syncwarp" : "barrier.child-about-syncthreads"));
  const auto cases = barrier_cases(sw);
  for (const auto& c : cases) {
    const std::string name = case_name(sw, c), id = case_id(sw, c);
    s.add(steps_table(c.model.steps, "schedule-" + id, say("barrier.schedule-title", {{"case", case_title(sw, c)}})));
    s.fact("model-" + id, say("barrier.model-name", {{"name", name}}),
           ranges_text(fold(c.model.records, barrier_child_describe(sw, c.variant)), noun));
    if (!c.model.deadlock) continue;  // if / else: nobody waits for a thread that is not coming
    const std::string cycle = c.model.graph.cycle_text();
    s.fact("cycle-" + id, say("barrier.cycle-name", {{"name", name}}), cycle);
    // Who waits at the barrier, as lanes ("0-47"): the cycle's words as data.
    s.fact("at-barrier-" + id, say("barrier.at-barrier-name", {{"nouns", nouns_word(noun)}, {"name", name}}),
           c.present == 1 ? std::string("0") : "0-" + std::to_string(c.present - 1));
    s.check("model-" + id + "-deadlocks", say("barrier.model-deadlocks", {{"name", name}}), !cycle.empty(), cycle);
  }
  if (!sw)
    s.fact("synccheck-command", "compute-sanitizer", synccheck_command_text(), Format::plain,
           say("barrier.synccheck-note"));
  if (!run.ctx.gpu) {
    s.fact("gpu", say("gpu.this-gpu"), report::NeedsGpu{}, Format::plain, say("barrier.gpu-note"));
    return s;
  }
  add_child(s, sw ? run.warp_child : run.sync_child, cases, sw);
  add_health(s, gpu_health(), sw ? "syncwarp-mask" : "divergent-syncthreads");
  if (!sw && run.options.sanitize) add_sanitizer(s, run);
  return s;
}

std::string barrier_child(Run& run, bool syncwarp) {
  // A hung kernel: write what the threads recorded so far and end at once. No destructor and no CUDA
  // call may run any more: each would wait for the kernel, forever.
  const std::string out = run.child_out;
  const OnHang on_hang = [out](const std::vector<BarrierObservation>& cases) {
    Health none;
    none.detail = say("barrier.health-not-run-hung");
    try {
      parts::write_child_answer(out, format_observations(cases, none));
    } catch (const Error&) {
      std::_Exit(2);
    }
    std::_Exit(0);
  };
  try {
    const unsigned long long ns = run.deadline_ns();
    const int grace = run.options.child_grace_ms;
    const auto cases = syncwarp ? gpu_syncwarp_mask(ns, grace, on_hang) : gpu_divergent_syncthreads(ns, grace, on_hang);
    return format_observations(cases, gpu_health());
  } catch (const Error& e) {
    return format_child_error(e.what());
  }
}

}  // namespace cudasync::deadlock_demo
