#include "techniques/threadfence/threadfence_judge.hpp"

#include "core/kernel_listing.hpp"
#include "core/report/text_format.hpp"

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
  if (!r.gpu) return weak_allowed ? "allowed" : "forbidden (" + r.model.forbidden_by + ")";
  const LitmusCounts& c = *r.gpu;
  if (r.timeouts_expected) {
    if (c.timed_out == 0) return "every wait saw y = 1";
    return grouped(c.timed_out) + " of " + grouped(c.instances) + " waits gave up";
  }
  if (!forbidden_seen(r).empty()) return "FORBIDDEN, SEEN";
  const bool seen = c.outcome[weak_outcome(r.spec.test)] > 0;
  if (weak_allowed) return seen ? "allowed, seen" : "allowed, not seen";
  return "forbidden, not seen";
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
    const std::string config = std::string(to_string(r.spec.test)) + " with fence " + fences_text(r.spec);
    if (const auto seen = forbidden_seen(r); !seen.empty()) {
      std::string what, why;
      for (int o : seen) {
        what += (what.empty() ? "" : ", ") + outcome_text(o) + " " + grouped(c.outcome[o]) + " times";
        const std::string& reason = r.model.reasons[static_cast<std::size_t>(o)];
        if (!reason.empty() && why.find(reason) == std::string::npos) why += (why.empty() ? "" : "; ") + reason;
      }
      sum.findings.push_back(config + " (" + to_string(r.spec.access) + ", " + to_string(r.spec.placement) + "): " +
                             what + " in " + grouped(c.completed()) + " instances; the PTX memory model forbids it (" +
                             (why.empty() ? "no candidate execution gives it" : why) + ")");
    }
    if (c.timed_out > 0 && !r.timeouts_expected)
      sum.timeouts.push_back(std::string(to_string(r.spec.test)) + " " + fences_text(r.spec) + ": " +
                             grouped(c.timed_out) + " of " + grouped(c.instances));
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

std::vector<std::string> missing_opcodes(const std::vector<std::string>& code, const std::vector<std::string>& must) {
  std::vector<std::string> out;
  for (const auto& m : must)
    if (!has_opcode(code, m)) out.push_back(m);
  return out;
}

}  // namespace cudasync::threadfence
