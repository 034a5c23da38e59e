#include "techniques/threadfence/threadfence_judge.hpp"

#include <algorithm>

#include "core/kernel_listing.hpp"
#include "core/report/text_format.hpp"
#include "techniques/threadfence/threadfence_lesson.hpp"

namespace cudasync::threadfence {

using report::grouped;

LitmusRow make_row(const LitmusSpec& spec, long long iterations, unsigned long long budget_ns) {
  LitmusRow r;
  r.spec = spec;
  r.iterations = iterations;
  r.budget_ns = budget_ns;
  r.model = ptx_model(spec);
  return r;
}

std::vector<int> forbidden_seen(const LitmusRow& r) {
  std::vector<int> out;
  if (!r.gpu) return out;
  for (int o = 0; o < kOutcomes; ++o)
    if (r.gpu->outcome[o] > 0 && !r.model.allowed[static_cast<std::size_t>(o)]) out.push_back(o);
  return out;
}

std::string litmus_verdict(const LitmusRow& r) {
  const bool weak_allowed = r.model.weak_allowed(r.spec.test);
  if (!r.gpu) return weak_allowed ? say("verdict.allowed") : say("verdict.forbidden", {{"reason", r.model.forbidden_by}});
  const LitmusCounts& c = *r.gpu;
  if (r.timeouts_expected) {
    if (c.timed_out == 0) return say("verdict.every-wait-saw-flag");
    return say("verdict.waits-gave-up", {{"timed-out", grouped(c.timed_out)}, {"instances", grouped(c.instances)}});
  }
  if (!forbidden_seen(r).empty()) return say("verdict.forbidden-seen");
  const bool seen = c.outcome[weak_outcome(r.spec.test)] > 0;
  if (weak_allowed) return say(seen ? "verdict.allowed-seen" : "verdict.allowed-not-seen");
  return say("verdict.forbidden-not-seen");
}

std::optional<double> weak_share(const LitmusCounts& c, Test test) {
  const std::uint64_t done = c.completed();
  if (done == 0) return std::nullopt;
  return static_cast<double>(c.outcome[weak_outcome(test)]) / static_cast<double>(done);
}

LitmusSummary summarize(const std::vector<LitmusRow>& rows) {
  LitmusSummary sum;
  for (const auto& r : rows) {
    ++sum.rows;
    if (!r.gpu) continue;
    const LitmusCounts& c = *r.gpu;
    sum.completed += c.completed();
    if (!r.timeouts_expected) sum.bounded_waits += c.instances;
    if (const auto seen = forbidden_seen(r); !seen.empty()) {
      std::string what, why;
      for (int o : seen) {
        what += (what.empty() ? "" : ", ") +
                say("finding.outcome-times", {{"outcome", outcome_text(o)}, {"times", grouped(c.outcome[o])}});
        const std::string& reason = r.model.reasons[static_cast<std::size_t>(o)];
        if (!reason.empty() && why.find(reason) == std::string::npos) why += (why.empty() ? "" : "; ") + reason;
      }
      sum.findings.push_back(say("finding.forbidden-seen", {{"test", to_string(r.spec.test)},
                                                            {"fences", fences_text(r.spec)},
                                                            {"access", to_string(r.spec.access)},
                                                            {"placement", to_string(r.spec.placement)},
                                                            {"what", what},
                                                            {"completed", grouped(c.completed())},
                                                            {"why", why.empty() ? say("finding.no-execution") : why}}));
    }
    if (c.timed_out > 0 && !r.timeouts_expected)
      sum.timeouts.push_back(say("finding.timeouts", {{"test", to_string(r.spec.test)},
                                                      {"fences", fences_text(r.spec)},
                                                      {"timed-out", grouped(c.timed_out)},
                                                      {"instances", grouped(c.instances)}}));
  }
  return sum;
}

GuardTally tally_guard(const LastBlockRun& r, std::uint64_t model_sum) {
  GuardTally t;
  t.runs = r.result.size();
  for (std::size_t i = 0; i < t.runs; ++i) {
    t.right += r.result[i] == model_sum && r.last_block[i] >= 0 ? 1 : 0;
    t.reset += r.counter[i] == 0 ? 1 : 0;
  }
  return t;
}

QueueTally tally_queue(const QueueRun& r) {
  QueueTally t;
  t.items = r.times_processed.size();
  for (auto n : r.times_processed) t.once += n == 1 ? 1 : 0;
  t.checksum_equal = r.checksum == checksum_of_all(static_cast<int>(t.items));
  return t;
}

bool assignment_agrees(const QueueRun& r, const Schedule& model) {
  return r.processed_by == model.item_block;
}

std::vector<double> block_ns(const QueueRun& r) {
  std::vector<double> out;
  for (long long c : r.block_cycles) out.push_back(static_cast<double>(c) * r.ns_per_cycle);
  return out;
}

std::vector<std::vector<std::int32_t>> fetched_sequences(const RaceSpec& spec, const RaceRun& r) {
  std::vector<std::vector<std::int32_t>> seq(static_cast<std::size_t>(spec.blocks));
  for (int b = 0; b < spec.blocks; ++b)
    for (int k = 0; k < spec.max_turns; ++k) {
      const std::int32_t i = r.fetched[static_cast<std::size_t>(b * spec.max_turns + k)];
      if (i == kNoTurn) break;
      seq[static_cast<std::size_t>(b)].push_back(i);
      if (i == kNoItem) break;
    }
  return seq;
}

RaceTally tally_race(const RaceSpec& spec, RaceVariant v, const RaceRun& r) {
  RaceTally t;
  const int warps = spec.warps();
  t.counts.assign(static_cast<std::size_t>(spec.items() * warps), 0);
  for (int i = 0; i < spec.items(); ++i)
    for (int w = 0; w < warps; ++w) {
      const std::size_t base = static_cast<std::size_t>(i * spec.threads + w * kWarpSize);
      const std::uint32_t c = r.filed[base];
      for (int l = 1; l < kWarpSize; ++l)
        if (r.filed[base + static_cast<std::size_t>(l)] != c) {
          ++t.lanes_disagree;
          break;
        }
      t.counts[static_cast<std::size_t>(i * warps + w)] = c;
    }
  t.gpu = summarize_counts(t.counts);
  const auto seq = fetched_sequences(spec, r);
  for (int b = 0; b < spec.blocks; ++b) {
    const auto& mine = seq[static_cast<std::size_t>(b)];
    t.log_complete = t.log_complete && !mine.empty() && mine.back() == kNoItem;
    for (std::size_t k = 0; k < mine.size() && mine[k] >= 0; ++k)
      for (int w = 0; w < warps; ++w) {
        const std::size_t at = (static_cast<std::size_t>(b * spec.max_turns) + k) * static_cast<std::size_t>(warps) +
                               static_cast<std::size_t>(w);
        t.gpu_misfiled += r.filed_by[at] != mine[k] ? 1 : 0;
      }
  }
  t.model = race_counts(spec, v, seq);
  t.model_summary = summarize_counts(t.model.counts);
  for (std::size_t p = 0; p < t.counts.size(); ++p) t.predicted += t.counts[p] == t.model.counts[p] ? 1 : 0;
  return t;
}

PartialVerdict judge_partial(const PartialSpec& spec, PartialVariant v, const PartialRun& r) {
  PartialVerdict out;
  const std::string seen =
      say("partial.seen", {{"tickets", r.counter},
                           {"merged", r.last_block >= 0 ? say("partial.block-merged", {{"block", r.last_block}})
                                                        : say("partial.no-block-merged")},
                           {"sum", r.result == kNeverWritten ? say("partial.never-written") : std::to_string(r.result)}});
  const PartialPrediction m = partial_model(spec, v);
  if (v == PartialVariant::every_block)
    out.as_predicted = r.completed && r.counter == m.tickets && r.last_block >= 0 && r.result == partial_sum(spec);
  else if (v == PartialVariant::skipping_blocks)
    out.as_predicted = r.completed && r.counter == m.tickets && r.last_block < 0 && r.result == kNeverWritten;
  out.detail = seen;
  return out;
}

std::string stage_text(const PartialSpec& spec, const PartialRun& r) {
  std::size_t zero[5] = {}, rest[5] = {};
  for (int b = 0; b < spec.blocks; ++b)
    for (int t = 0; t < spec.threads; ++t) {
      const auto s = static_cast<std::size_t>(
          std::clamp(r.stage[static_cast<std::size_t>(b * spec.threads + t)], 0, static_cast<int>(PartialStage::done)));
      (t == 0 ? zero : rest)[s] += 1;
    }
  const char* where[5] = {"stage.not-started", "stage.in-guard", "stage.out-of-guard", "stage.after-if", "stage.done"};
  std::string a, b;
  for (std::size_t s = 0; s < 5; ++s) {
    if (zero[s]) a += (a.empty() ? "" : ", ") + say("stage.count", {{"where", say(where[s])}, {"count", zero[s]}});
    if (rest[s]) b += (b.empty() ? "" : ", ") + say("stage.count", {{"where", say(where[s])}, {"count", rest[s]}});
  }
  return say("stage.text", {{"thread-zero", a}, {"others", b}});
}

bool host_forbidden_seen(const ModelVerdict& model, const HostObserverRun& r) {
  return r.stale > 0 && !model.allowed[static_cast<std::size_t>(outcome_index(1, 0))];
}

std::vector<std::string> missing_opcodes(const std::vector<std::string>& code, const std::vector<std::string>& must) {
  std::vector<std::string> out;
  for (const auto& m : must)
    if (!has_opcode(code, m)) out.push_back(m);
  return out;
}

}  // namespace cudasync::threadfence
