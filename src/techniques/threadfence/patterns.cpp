// threadfence's patterns, model, judges and parts: last-block (the SO Docs single-pass reduction,
// where the last block to finish merges the partials: its two guards, with the acquire half they
// lack, and two broken ones, run after run against the model's exact sum), work-queue (the SO Docs
// WorkQueue against a fixed a-priori assignment, on items of very uneven cost), work-queue-race (no
// __syncthreads() between two fetch() calls: a warp still working on the __shared__ item when thread
// 0 fetches the next one files its result under the next item; counted on the GPU, explained by the
// model from the GPU's own fetch order) and last-block-partial (lastBlock called by only some
// threads: blocks that skip it leave the last ticket undrawn; a guard inside if (threadIdx.x == 0)
// puts __syncthreads_or in divergent code, which may hang the GPU, so that one runs in a child
// process, watched, its threads' stages read from host-mapped memory).
#include <algorithm>
#include <cstdlib>
#include <queue>
#include <random>
#include <sstream>

#include "core/number_list.hpp"
#include "core/parts/child.hpp"
#include "core/report/text_format.hpp"
#include "techniques/threadfence/lesson.hpp"

namespace cudasync::threadfence {

using report::Format;
using report::Value;
using I = std::int64_t;

// ---- lastBlock ------------------------------------------------------------------------------------------

std::vector<std::uint32_t> make_last_block_input(long long n, std::uint64_t seed) {
  std::vector<std::uint32_t> v(static_cast<std::size_t>(n));
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 5);
  for (auto& x : v) x = static_cast<std::uint32_t>(rng() >> 48);  // 0..65535: the sum fits easily
  return v;
}

std::uint64_t exact_sum(const std::vector<std::uint32_t>& v) {
  std::uint64_t s = 0;
  for (auto x : v) s += x;
  return s;
}

namespace {

// Per guard, in LastBlockVariant's order: its id (kebab-case, for check ids) and its catalog key.
const char* const kGuardIds[kLastBlockVariants] = {"syncthreads-or", "shared-flag", "no-fence", "other-writer"};
const char* const kGuardKeys[kLastBlockVariants] = {"guard.syncthreads-or", "guard.shared-flag", "guard.no-fence",
                                                    "guard.other-writer"};

}  // namespace

std::string to_string(LastBlockVariant v) { return say(kGuardKeys[static_cast<std::size_t>(v)]); }
const char* guard_id(LastBlockVariant v) { return kGuardIds[static_cast<std::size_t>(v)]; }

bool guard_is_correct(LastBlockVariant v) {
  return v == LastBlockVariant::syncthreads_or || v == LastBlockVariant::shared_flag;
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

report::Section last_block_section(const LastBlockSpec& spec, std::uint64_t model_sum,
                                   const std::vector<LastBlockOutcome>& runs, bool gpu_run) {
  report::Section s("last-block", say("last-block.title"));
  s.paragraph(say("last-block.about"));
  s.paragraph(say("last-block.about-broken"));
  s.fact("blocks", say("grid.blocks"), I{spec.blocks}, Format::count);
  s.fact("threads", say("grid.threads"), I{spec.threads}, Format::count);
  s.fact("elements", say("last-block.elements"), static_cast<I>(spec.elements()), Format::count,
         say("last-block.per-thread", {{"count", spec.per_thread}}));
  s.fact("model-sum", say("last-block.model-sum"), static_cast<I>(model_sum), Format::exact, say("last-block.model-sum-note"));
  s.fact("runs", say("last-block.runs"), I{spec.runs}, Format::count, say("last-block.runs-note"));
  report::Table t("guards", say("last-block.table-title"));
  t.column("guard", say("last-block.guard")).column("model", say("the-model")).column("runs", say("last-block.runs-column"), Format::count);
  if (gpu_run)  // what only a GPU gives: the model's table leaves it out
    t.column("right", say("last-block.right"), Format::count)
        .column("wrong", say("last-block.wrong"), Format::count)
        .column("reset", say("last-block.reset"), Format::count);
  for (const auto& o : runs) {
    const bool correct = guard_is_correct(o.variant);
    std::vector<std::pair<std::string, report::Value>> cells{
        {"guard", to_string(o.variant)}, {"model", say(correct ? "last-block.always-right" : "last-block.may-be-wrong")}};
    report::RowMark mark = report::RowMark::none;
    if (!o.gpu) {
      cells.emplace_back("runs", I{spec.runs});
      t.row(cells, mark);
      continue;
    }
    const GuardTally g = tally_guard(*o.gpu, model_sum);
    cells.insert(cells.end(), {{"runs", static_cast<I>(g.runs)},
                               {"right", static_cast<I>(g.right)},
                               {"wrong", static_cast<I>(g.wrong())},
                               {"reset", static_cast<I>(g.reset)}});
    const std::string id = guard_id(o.variant);
    if (correct) {
      mark = s.agreement(id + "-sum", say("last-block.every-sum", {{"guard", to_string(o.variant)}}),
                         g.right == g.runs, say("last-block.of-runs", {{"count", g.right}, {"runs", g.runs}}));
      s.check(id + "-counter-reset", say("last-block.counter-reset", {{"guard", to_string(o.variant)}}),
              g.reset == g.runs, say("last-block.of-runs", {{"count", g.reset}, {"runs", g.runs}}));
    } else {
      s.note(say("last-block.wrong-note", {{"guard", to_string(o.variant)}, {"wrong", g.wrong()}, {"runs", g.runs}}));
    }
    t.row(cells, mark);
  }
  for (const char* line : {"last-block.legend-1", "last-block.legend-2", "last-block.legend-3", "last-block.legend-4"})
    t.legend.push_back(say(line));
  s.add(std::move(t));
  if (!gpu_run) s.note(say("last-block.no-gpu"));
  return s;
}

report::Section last_block_part(Run& run) {
  LastBlockSpec spec;
  if (run.ctx.gpu) spec.blocks = 2 * run.ctx.device->sm_count;
  spec.runs = run.ctx.bench ? 1000 : 200;
  spec.input = make_last_block_input(spec.elements(), run.ctx.seed);
  const std::uint64_t sum = exact_sum(spec.input);
  std::vector<LastBlockOutcome> outcomes;
  for (int i = 0; i < kLastBlockVariants; ++i) {
    const auto v = static_cast<LastBlockVariant>(i);
    outcomes.push_back({v, run.ctx.gpu ? std::optional<LastBlockRun>(gpu_last_block(spec, v)) : std::nullopt});
  }
  return last_block_section(spec, sum, outcomes, run.ctx.gpu);
}

// ---- WorkQueue ------------------------------------------------------------------------------------------

std::vector<std::uint32_t> make_costs(int items, std::uint64_t seed) {
  std::vector<std::uint32_t> c(static_cast<std::size_t>(items));
  std::mt19937_64 rng(seed * 0xD1B54A32D192ED03ull + 13);
  for (auto& x : c) x = 1u << (rng() % 6);  // 1, 2, 4, 8, 16 or 32 units
  return c;
}

std::uint64_t Schedule::makespan() const {
  return block_units.empty() ? 0 : *std::max_element(block_units.begin(), block_units.end());
}

Schedule static_schedule(const std::vector<std::uint32_t>& costs, int blocks) {
  Schedule s;
  s.block_units.assign(static_cast<std::size_t>(blocks), 0);
  s.block_items.assign(static_cast<std::size_t>(blocks), 0);
  s.item_block.assign(costs.size(), -1);
  for (std::size_t i = 0; i < costs.size(); ++i) {
    const auto b = i % static_cast<std::size_t>(blocks);
    s.block_units[b] += costs[i];
    s.block_items[b] += 1;
    s.item_block[i] = static_cast<std::int32_t>(b);
  }
  return s;
}

Schedule queue_schedule(const std::vector<std::uint32_t>& costs, int blocks) {
  Schedule s;
  s.block_units.assign(static_cast<std::size_t>(blocks), 0);
  s.block_items.assign(static_cast<std::size_t>(blocks), 0);
  s.item_block.assign(costs.size(), -1);
  using Slot = std::pair<std::uint64_t, int>;  // (free at, block): the smallest first
  std::priority_queue<Slot, std::vector<Slot>, std::greater<Slot>> free_at;
  for (int b = 0; b < blocks; ++b) free_at.push({0, b});
  for (std::size_t i = 0; i < costs.size(); ++i) {
    const Slot slot = free_at.top();
    free_at.pop();
    const auto b = static_cast<std::size_t>(slot.second);
    s.block_units[b] += costs[i];
    s.block_items[b] += 1;
    s.item_block[i] = slot.second;
    free_at.push({slot.first + costs[i], slot.second});
  }
  return s;
}

std::uint64_t checksum_of_all(int items) {
  std::uint64_t s = 0;
  for (int i = 0; i < items; ++i) s += item_checksum(static_cast<std::uint32_t>(i));
  return s;
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

namespace {

std::string bar(double v, double max, int width = 12) {
  if (max <= 0) return "";
  const int n = static_cast<int>(v / max * width + 0.5);
  return std::string(static_cast<std::size_t>(std::max(0, n)), '#');
}

void add_model_facts(report::Section& s, const QueueSpec& spec, const Schedule& st, const Schedule& qu) {
  std::uint64_t total = 0;
  std::uint32_t biggest = 0;
  for (auto c : spec.cost_units) {
    total += c;
    biggest = std::max(biggest, c);
  }
  s.fact("blocks", say("grid.blocks"), I{spec.blocks}, Format::count);
  s.fact("threads", say("grid.threads"), I{spec.threads}, Format::count);
  s.fact("items", say("queue.items"), I{spec.items()}, Format::count,
         say("queue.items-note", {{"total", total}, {"largest", biggest}}));
  s.fact("unit", say("queue.unit"), I{spec.unit_cycles}, Format::cycles, say("queue.unit-note"));
  s.fact("slowest-a-priori-model", say("queue.slowest-a-priori-model"), static_cast<I>(st.makespan()), Format::count,
         say("queue.average", {{"average", report::fixed(static_cast<double>(total) / spec.blocks, 1)}}));
  s.fact("slowest-queue-model", say("queue.slowest-queue-model"), static_cast<I>(qu.makespan()), Format::count,
         say("queue.greedy"));
  s.fact("a-priori-vs-queue-model", say("queue.ratio-model"),
         static_cast<double>(st.makespan()) / static_cast<double>(qu.makespan()), Format::ratio);
}

}  // namespace

report::Section work_queue_section(const QueueSpec& spec, const QueueOutcome& gpu, bool gpu_run) {
  report::Section s("work-queue", say("queue.title"));
  s.paragraph(say("queue.about"));
  s.paragraph(say("queue.about-fetch"));
  const Schedule st = static_schedule(spec.cost_units, spec.blocks), qu = queue_schedule(spec.cost_units, spec.blocks);
  add_model_facts(s, spec, st, qu);
  const bool have = gpu.a_priori && gpu.queue;
  std::vector<double> a_ns, q_ns;
  if (have) {
    a_ns = block_ns(*gpu.a_priori);
    q_ns = block_ns(*gpu.queue);
    const double ma = *std::max_element(a_ns.begin(), a_ns.end()), mq = *std::max_element(q_ns.begin(), q_ns.end());
    s.fact("slowest-a-priori-gpu", say("queue.slowest-a-priori-gpu"), ma, Format::ns, say("queue.block-time-note"));
    s.fact("slowest-queue-gpu", say("queue.slowest-queue-gpu"), mq, Format::ns);
    s.fact("a-priori-vs-queue-gpu", say("queue.ratio-gpu"), ma / mq, Format::ratio);
  }
  const Format f = have ? Format::ns : Format::count;
  report::Table t("blocks", say(have ? "queue.table-gpu" : "queue.table-model"));
  t.column("block", say("queue.block"))
      .column("a-priori-items", say("queue.items"), Format::count)
      .column("a-priori", say(have ? "queue.a-priori-ns" : "queue.a-priori-units"), f)
      .column("a-priori-bar", "")
      .column("queue-items", say("queue.items"), Format::count)
      .column("queue", say(have ? "queue.queue-ns" : "queue.queue-units"), f)
      .column("queue-bar", "");
  const auto value = [&](bool queue, std::size_t b) -> double {
    if (have) return (queue ? q_ns : a_ns)[b];
    return static_cast<double>((queue ? qu : st).block_units[b]);
  };
  const auto cell = [&](bool queue, std::size_t b) -> Value {
    if (have) return value(queue, b);
    return static_cast<I>((queue ? qu : st).block_units[b]);
  };
  double max = 0;
  for (std::size_t b = 0; b < static_cast<std::size_t>(spec.blocks); ++b)
    max = std::max({max, value(false, b), value(true, b)});
  for (std::size_t b = 0; b < static_cast<std::size_t>(spec.blocks); ++b)
    t.row({{"block", static_cast<I>(b)},
           {"a-priori-items", I{have ? gpu.a_priori->block_items[b] : st.block_items[b]}},
           {"a-priori", cell(false, b)},
           {"a-priori-bar", bar(value(false, b), max)},
           {"queue-items", I{have ? gpu.queue->block_items[b] : qu.block_items[b]}},
           {"queue", cell(true, b)},
           {"queue-bar", bar(value(true, b), max)}});
  s.add(std::move(t));
  if (!have) {
    if (!gpu_run) s.note(say("queue.no-gpu"));
    return s;
  }
  // Every item exactly once; the fixed assignment exactly as the model says; the checksum.
  for (const auto& [id, title, run] : {std::tuple{"a-priori", "queue.a-priori-each-once", &*gpu.a_priori},
                                       std::tuple{"queue", "queue.queue-each-once", &*gpu.queue}}) {
    const QueueTally q = tally_queue(*run);
    s.agreement(std::string(id) + "-each-item-once", say(title), q.passed(),
                say(q.checksum_equal ? "queue.once-checksum-equal" : "queue.once-checksum-differs",
                    {{"once", q.once}, {"items", q.items}}));
  }
  s.agreement("a-priori-assignment", say("queue.a-priori-assignment"), assignment_agrees(*gpu.a_priori, st),
              say("queue.items-count", {{"count", st.item_block.size()}}));
  return s;
}

report::Section work_queue_part(Run& run) {
  QueueSpec spec;
  spec.cost_units = make_costs(128, run.ctx.seed);
  QueueOutcome got;
  if (run.ctx.gpu) {
    got.a_priori = gpu_queue(spec, false);
    got.queue = gpu_queue(spec, true);
  }
  return work_queue_section(spec, got, run.ctx.gpu);
}

// ---- WorkQueue race -------------------------------------------------------------------------------------

RaceSpec make_race_spec(std::uint64_t seed) {
  RaceSpec s;
  constexpr int kItems = 64;
  std::mt19937_64 rng(seed * 0xA24BAED4963EE407ull + 29);
  s.cost_units.resize(kItems);
  s.share.resize(static_cast<std::size_t>(kItems * s.warps()));
  for (int i = 0; i < kItems; ++i) {
    s.cost_units[static_cast<std::size_t>(i)] = 1u + static_cast<std::uint32_t>(rng() % 4);
    for (int w = 0; w < s.warps(); ++w)
      s.share[static_cast<std::size_t>(i * s.warps() + w)] = w == 0 ? kWarpZeroShare : (rng() % 2 ? 3u : 1u);
  }
  return s;
}

std::string to_string(RaceVariant v) {
  return v == RaceVariant::barrier ? std::string("__syncthreads()") : say("race.no-barrier");
}

namespace {

// Each block's fetched items from the GPU's log: up to its kNoItem, or to where the log ends.
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

const char* race_id(RaceVariant v) { return v == RaceVariant::barrier ? "barrier" : "no-barrier"; }

std::uint32_t share_of(const RaceSpec& s, std::int32_t item, int warp) {
  return s.share[static_cast<std::size_t>(item) * static_cast<std::size_t>(s.warps()) + static_cast<std::size_t>(warp)];
}

long long warp_cycles(const RaceSpec& s, std::int32_t item, int warp) {
  return static_cast<long long>(s.cost_units[static_cast<std::size_t>(item)]) * share_of(s, item, warp) * s.unit_cycles;
}

long long block_cycles(const RaceSpec& s, std::int32_t item) {
  long long m = 0;
  for (int w = 0; w < s.warps(); ++w) m = std::max(m, warp_cycles(s, item, w));
  return m;
}

}  // namespace

std::int32_t filed_under(const RaceSpec& spec, RaceVariant v, std::int32_t item, std::int32_t next, int warp) {
  if (v == RaceVariant::barrier || warp == 0) return item;
  return share_of(spec, item, warp) > share_of(spec, item, 0) ? next : item;
}

std::vector<std::vector<std::int32_t>> race_schedule(const RaceSpec& spec, RaceVariant v) {
  std::vector<std::vector<std::int32_t>> seq(static_cast<std::size_t>(spec.blocks));
  using Fetch = std::pair<long long, int>;  // (time, block): the earliest first, then the lower block
  std::priority_queue<Fetch, std::vector<Fetch>, std::greater<Fetch>> fetches;
  std::vector<long long> turn_start(static_cast<std::size_t>(spec.blocks), 0);
  for (int b = 0; b < spec.blocks; ++b) fetches.push({0, b});
  std::int32_t next = 0;
  while (!fetches.empty()) {
    const auto [t, b] = fetches.top();
    fetches.pop();
    auto& mine = seq[static_cast<std::size_t>(b)];
    const std::int32_t item = next < spec.items() ? next++ : kNoItem;
    // The turn this fetch feeds starts when the whole block has reached fetch()'s barrier.
    long long& start = turn_start[static_cast<std::size_t>(b)];
    if (!mine.empty()) start += block_cycles(spec, mine.back());
    mine.push_back(item);
    if (item == kNoItem) continue;
    fetches.push({start + (v == RaceVariant::barrier ? block_cycles(spec, item) : warp_cycles(spec, item, 0)), b});
  }
  return seq;
}

RaceCounts race_counts(const RaceSpec& spec, RaceVariant v, const std::vector<std::vector<std::int32_t>>& fetched) {
  RaceCounts r;
  r.counts.assign(static_cast<std::size_t>(spec.items() * spec.warps()), 0);
  for (const auto& seq : fetched)
    for (std::size_t k = 0; k < seq.size(); ++k) {
      const std::int32_t item = seq[k];
      if (item < 0) break;
      const std::int32_t next = k + 1 < seq.size() ? seq[k + 1] : kNoTurn;
      for (int w = 0; w < spec.warps(); ++w) {
        const std::int32_t f = filed_under(spec, v, item, next, w);
        if (f == kNoTurn) {
          ++r.unknown;
          continue;
        }
        if (f != item) ++r.misfiled;
        if (f >= 0) ++r.counts[static_cast<std::size_t>(f * spec.warps() + w)];
      }
    }
  return r;
}

RaceSummary summarize_counts(const std::vector<std::uint32_t>& counts) {
  RaceSummary s;
  s.portions = counts.size();
  for (auto c : counts) {
    s.once += c == 1 ? 1 : 0;
    s.lost += c == 0 ? 1 : 0;
    s.twice += c >= 2 ? 1 : 0;
  }
  return s;
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

namespace {

constexpr int kTraceTurns = 6;  // turns of block 0 the trace shows

const RaceVariant kRaceOrder[] = {RaceVariant::no_barrier, RaceVariant::barrier};

Value item_cell(std::int32_t i) {
  if (i >= 0) return I{i};
  return i == kNoItem ? say("race.none") : std::string("?");
}

// Block 0's first turns: the item thread 0 fetched, and what each warp filed its result under.
report::Table trace_table(const RaceSpec& spec, RaceVariant v, const RaceOutcome& o) {
  const bool gpu = o.gpu.has_value();
  report::Table t("trace-" + std::string(race_id(v)),
                  say(gpu ? "race.trace-title-gpu" : "race.trace-title-model", {{"variant", to_string(v)}}));
  t.column("turn", say("race.turn"), Format::count).column("item", say("race.worked-on"));
  for (int w = 0; w < spec.warps(); ++w) t.column("warp-" + std::to_string(w), say("race.warp", {{"warp", w}}));
  t.column("misfiled", say("race.misfiled"), Format::count);
  const std::vector<std::int32_t> seq = gpu ? fetched_sequences(spec, *o.gpu)[0] : race_schedule(spec, v)[0];
  for (int k = 0; k < kTraceTurns && k < static_cast<int>(seq.size()) && seq[static_cast<std::size_t>(k)] >= 0; ++k) {
    const std::int32_t item = seq[static_cast<std::size_t>(k)];
    const std::int32_t next = k + 1 < static_cast<int>(seq.size()) ? seq[static_cast<std::size_t>(k + 1)] : kNoTurn;
    std::vector<std::pair<std::string, Value>> cells{{"turn", I{k}}, {"item", item_cell(item)}};
    I moved = 0;
    for (int w = 0; w < spec.warps(); ++w) {
      const std::int32_t f =
          gpu ? o.gpu->filed_by[static_cast<std::size_t>(k * spec.warps() + w)] : filed_under(spec, v, item, next, w);
      moved += f != item ? 1 : 0;
      cells.emplace_back("warp-" + std::to_string(w), item_cell(f));
    }
    cells.emplace_back("misfiled", moved);
    t.row(cells);
  }
  t.legend.push_back(say("race.trace-legend-1"));
  t.legend.push_back(say("race.trace-legend-2"));
  t.legend.push_back(say("race.trace-legend-3"));
  return t;
}

}  // namespace

report::Section work_queue_race_section(const RaceSpec& spec, const std::vector<RaceOutcome>& runs, bool gpu_run) {
  report::Section s("work-queue-race", say("race.title"));
  s.paragraph(say("race.about"));
  s.paragraph(say("race.about-model"));
  s.fact("blocks", say("grid.blocks"), I{spec.blocks}, Format::count);
  s.fact("warps", say("race.warps"), I{spec.warps()}, Format::count, say("race.threads", {{"threads", spec.threads}}));
  s.fact("items", say("queue.items"), I{spec.items()}, Format::count, say("race.items-note"));
  s.fact("unit", say("queue.unit"), I{spec.unit_cycles}, Format::cycles, say("race.unit-note"));
  s.fact("portions", say("race.portions"), I{spec.items() * spec.warps()}, Format::count, say("race.portions-note"));
  report::Table t("variants", say(gpu_run ? "race.table-gpu" : "race.table-model"));
  t.column("variant", say("race.between-fetches")).column("model", say("the-model"));
  t.column("once", say("race.once"), Format::count).column("lost", say("race.never"), Format::count);
  t.column("twice", say("race.twice"), Format::count).column("misfiled", say("race.misfiled"), Format::count);
  if (gpu_run) t.column("predicted", say("race.predicted"), Format::count);
  for (const auto& o : runs) {
    const bool ok = o.variant == RaceVariant::barrier;
    std::vector<std::pair<std::string, Value>> cells{{"variant", to_string(o.variant)},
                                                     {"model", say(ok ? "race.each-share-once" : "race.may-lose")}};
    report::RowMark mark = report::RowMark::none;
    if (!gpu_run || !o.gpu) {
      const RaceCounts m = race_counts(spec, o.variant, race_schedule(spec, o.variant));
      const RaceSummary sum = summarize_counts(m.counts);
      cells.insert(cells.end(), {{"once", static_cast<I>(sum.once)},
                                 {"lost", static_cast<I>(sum.lost)},
                                 {"twice", static_cast<I>(sum.twice)},
                                 {"misfiled", static_cast<I>(m.misfiled)}});
      if (gpu_run) cells.emplace_back("predicted", report::NeedsGpu{});
      t.row(cells, mark);
      continue;
    }
    const RaceTally g = tally_race(spec, o.variant, *o.gpu);
    cells.insert(cells.end(), {{"once", static_cast<I>(g.gpu.once)},
                               {"lost", static_cast<I>(g.gpu.lost)},
                               {"twice", static_cast<I>(g.gpu.twice)},
                               {"misfiled", static_cast<I>(g.gpu_misfiled)},
                               {"predicted", static_cast<I>(g.predicted)}});
    const std::string id = race_id(o.variant);
    const std::string counted = say("race.counted", {{"once", g.gpu.once},
                                                     {"portions", g.gpu.portions},
                                                     {"lost", g.gpu.lost},
                                                     {"twice", g.gpu.twice},
                                                     {"disagree", g.lanes_disagree}});
    if (ok) {
      const bool each = g.gpu.once == g.gpu.portions && g.lanes_disagree == 0 && g.gpu_misfiled == 0;
      mark = s.agreement(id + "-each-share-once", say("race.every-share-once", {{"variant", to_string(o.variant)}}),
                         each, counted);
    } else {
      s.note(say("race.gpu-note", {{"variant", to_string(o.variant)},
                                   {"counted", counted},
                                   {"predicted", g.predicted},
                                   {"portions", g.gpu.portions},
                                   {"lost", g.model_summary.lost},
                                   {"twice", g.model_summary.twice}}));
    }
    s.check(id + "-log-complete", say("race.log-complete", {{"variant", to_string(o.variant)}}), g.log_complete,
            say("race.log-complete-detail", {{"turns", spec.max_turns}}));
    t.row(cells, mark);
  }
  t.legend.push_back(say("race.legend-counts"));
  t.legend.push_back(say("race.legend-misfiled"));
  if (gpu_run) t.legend.push_back(say("race.legend-predicted"));
  s.add(std::move(t));
  for (const auto& o : runs) s.add(trace_table(spec, o.variant, gpu_run ? o : RaceOutcome{o.variant, {}}));
  if (!gpu_run) s.note(say("race.no-gpu"));
  return s;
}

report::Section work_queue_race_part(Run& run) {
  const RaceSpec spec = make_race_spec(run.ctx.seed);
  std::vector<RaceOutcome> runs;
  for (RaceVariant v : kRaceOrder)
    runs.push_back({v, run.ctx.gpu ? std::optional<RaceRun>(gpu_queue_race(spec, v)) : std::nullopt});
  return work_queue_race_section(spec, runs, run.ctx.gpu);
}

// ---- lastBlock called by only some threads -----------------------------------------------------------

PartialSpec make_partial_spec(std::uint64_t seed) {
  PartialSpec s;
  std::mt19937_64 rng(seed * 0x9FB21C651E98DF25ull + 41);
  s.input.resize(static_cast<std::size_t>(s.data_blocks * s.threads));
  for (auto& x : s.input) x = static_cast<std::uint32_t>(rng() >> 44);  // 0..1048575
  return s;
}

namespace {

// Per call, in PartialVariant's order: its id, its catalog key, and the code its legend shows.
struct PartialWords {
  const char* id;
  const char* key;
  const char* code;
};
const PartialWords kPartialWords[kPartialVariants] = {
    {"every-block", "partial.every-block", "partial(); if (lastBlock(c)) merge();"},
    {"skipping-blocks", "partial.skipping-blocks", "if (!data) return; partial(); if (lastBlock(c)) merge();"},
    {"thread-zero-only", "partial.thread-zero-only", "if (tid == 0 && lastBlock(c)) merge(); __syncthreads();"},
};
const char* partial_id(PartialVariant v) { return kPartialWords[static_cast<std::size_t>(v)].id; }

}  // namespace

std::string to_string(PartialVariant v) { return say(kPartialWords[static_cast<std::size_t>(v)].key); }
std::uint64_t partial_sum(const PartialSpec& spec) { return exact_sum(spec.input); }

PartialPrediction partial_model(const PartialSpec& spec, PartialVariant v) {
  PartialPrediction p;
  switch (v) {
    case PartialVariant::every_block:
      p.tickets = static_cast<std::uint32_t>(spec.blocks);
      p.merged = true;
      p.why = say("partial.why-every-block");
      break;
    case PartialVariant::skipping_blocks:
      p.tickets = static_cast<std::uint32_t>(spec.data_blocks);
      p.why = say("partial.why-skipping-blocks",
                  {{"data-blocks", spec.data_blocks}, {"last", spec.data_blocks - 1}, {"grid-last", spec.blocks - 1}});
      break;
    case PartialVariant::thread_zero_only:
      p.defined = false;
      p.tickets = static_cast<std::uint32_t>(spec.blocks);
      p.why = say("partial.why-thread-zero-only");
      break;
  }
  return p;
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

namespace {

constexpr int kWatchMs = 300;  // the child's watch on its kernel
constexpr std::chrono::milliseconds kChildTimeout{20000};

// "right sum, block 15 merged", "no sum", "hung after 300 ms": what a run gave, in a table cell.
std::string outcome_cell(const PartialSpec& spec, const PartialRun& r) {
  if (!r.completed) return say("partial.hung-after", {{"ms", r.watched_ms}});
  const std::string sum = say(r.result == kNeverWritten         ? "partial.no-sum"
                              : r.result == partial_sum(spec) ? "partial.right-sum"
                                                              : "partial.wrong-sum");
  if (r.last_block < 0) return sum;
  return say("partial.sum-merged", {{"sum", sum}, {"block", r.last_block}});
}

}  // namespace

std::string format_partial_answer(const PartialRun& r) {
  std::ostringstream o;
  o << "completed " << (r.completed ? 1 : 0) << "\nwatched_ms " << r.watched_ms << "\nresult " << r.result
    << "\ncounter " << r.counter << "\nlast " << r.last_block << "\nstage " << join_numbers(r.stage)
    << "\n";
  return o.str();
}

std::optional<PartialRun> parse_partial_answer(const std::string& text, std::size_t threads_total) {
  std::istringstream in(text);
  PartialRun r;
  std::string key, line;
  int have = 0;
  while (std::getline(in, line)) {
    const auto sp = line.find(' ');
    if (sp == std::string::npos) return std::nullopt;
    key = line.substr(0, sp);
    const std::string v = line.substr(sp + 1);
    std::vector<long long> nums;
    if (key == "result") {
      r.result = std::strtoull(v.c_str(), nullptr, 10);
      have |= 4;
      continue;
    }
    if (!split_numbers(v, nums)) return std::nullopt;
    if (key == "stage") {
      r.stage.assign(nums.begin(), nums.end());
      have |= 32;
      continue;
    }
    if (nums.size() != 1) return std::nullopt;
    if (key == "completed") r.completed = nums[0] != 0, have |= 1;
    else if (key == "watched_ms") r.watched_ms = nums[0], have |= 2;
    else if (key == "counter") r.counter = static_cast<std::uint32_t>(nums[0]), have |= 8;
    else if (key == "last") r.last_block = static_cast<std::int32_t>(nums[0]), have |= 16;
    else return std::nullopt;
  }
  if (have != 63 || r.stage.size() != threads_total) return std::nullopt;
  return r;
}

report::Section last_block_partial_section(const PartialSpec& spec, const std::vector<PartialOutcome>& runs,
                                           bool gpu_run) {
  report::Section s("last-block-partial", say("partial.title"));
  s.paragraph(say("partial.about"));
  s.paragraph(say("partial.about-thread-zero"));
  s.fact("blocks", say("grid.blocks"), I{spec.blocks}, Format::count);
  s.fact("data-blocks", say("partial.data-blocks"), I{spec.data_blocks}, Format::count,
         say("partial.data-blocks-note", {{"last", spec.data_blocks - 1}}));
  s.fact("threads", say("grid.threads"), I{spec.threads}, Format::count);
  s.fact("model-sum", say("last-block.model-sum"), static_cast<I>(partial_sum(spec)), Format::exact, "--seed");
  report::Table t("calls", say("partial.table-title"));
  t.column("call", say("partial.called")).column("model", say("the-model")).column("tickets-model", say("partial.tickets-model"), Format::count);
  if (gpu_run) t.column("tickets", say("partial.tickets"), Format::count).column("outcome", say("this-gpu"));
  for (const auto& o : runs) {
    const PartialPrediction m = partial_model(spec, o.variant);
    const std::string id = partial_id(o.variant);
    std::vector<std::pair<std::string, Value>> cells{
        {"call", id},
        {"model", say(!m.defined ? "partial.undefined" : m.merged ? "partial.right-sum" : "partial.no-sum")},
        {"tickets-model", static_cast<I>(m.tickets)}};
    s.fact("model-" + id, say("partial.model-fact", {{"variant", to_string(o.variant)}}), m.why);
    report::RowMark mark = report::RowMark::none;
    if (gpu_run && !o.gpu) {
      cells.emplace_back("tickets", report::Undefined{});
      cells.emplace_back("outcome", say("partial.no-answer"));
      s.fact("gpu-" + id, say("partial.gpu-fact", {{"variant", to_string(o.variant)}}),
             say("partial.child-no-answer", {{"problem", o.problem}}));
    } else if (gpu_run && o.gpu && o.variant != PartialVariant::thread_zero_only) {
      const PartialVerdict v = judge_partial(spec, o.variant, *o.gpu);
      cells.emplace_back("tickets", static_cast<I>(o.gpu->counter));
      cells.emplace_back("outcome", outcome_cell(spec, *o.gpu));
      mark = s.agreement(id + "-as-predicted", say("partial.as-predicted", {{"variant", to_string(o.variant)}}),
                         v.as_predicted, v.detail);
    } else if (gpu_run && o.gpu) {
      const std::string what =
          o.gpu->completed ? say("partial.kernel-ended", {{"detail", judge_partial(spec, o.variant, *o.gpu).detail}})
                           : say("partial.still-running", {{"ms", o.gpu->watched_ms}});
      cells.emplace_back("tickets", static_cast<I>(o.gpu->counter));
      cells.emplace_back("outcome", outcome_cell(spec, *o.gpu));
      s.fact("gpu-" + id, say("partial.gpu-fact", {{"variant", to_string(o.variant)}}), what);
      s.fact("stages-" + id, say("partial.stages"), stage_text(spec, *o.gpu));
    }
    t.row(cells, mark);
  }
  for (const auto& o : runs) {
    const PartialWords& w = kPartialWords[static_cast<std::size_t>(o.variant)];
    t.legend.push_back(std::string(w.id) + ": " + w.code);
  }
  s.add(std::move(t));
  if (!gpu_run) s.note(say("partial.no-gpu"));
  s.note(say("partial.correct-form"));
  return s;
}

report::Section last_block_partial_part(Run& run) {
  const PartialSpec spec = make_partial_spec(run.ctx.seed);
  std::vector<PartialOutcome> runs;
  for (int v = 0; v < kPartialVariants; ++v) runs.push_back({static_cast<PartialVariant>(v), std::nullopt, ""});
  if (run.ctx.gpu) {
    // The child first: whatever it does to its own context, this process's runs come after it.
    try {
      const ChildResult r =
          parts::start_child(run.ctx, lesson().id, "last-block-divergent", {}, kChildTimeout)->finish();
      if (r.status == ChildResult::Status::exited && r.exit_code == 0)
        runs[2].gpu = parse_partial_answer(r.output, static_cast<std::size_t>(spec.blocks * spec.threads));
      if (!runs[2].gpu) runs[2].problem = r.describe();
    } catch (const std::exception& e) {
      runs[2].problem = e.what();
    }
    runs[0].gpu = gpu_last_block_partial(spec, PartialVariant::every_block);
    runs[1].gpu = gpu_last_block_partial(spec, PartialVariant::skipping_blocks);
  }
  return last_block_partial_section(spec, runs, run.ctx.gpu);
}

std::string last_block_divergent_child(Run& run) {
  const std::string out = run.child_out;
  const auto on_hang = [out](const PartialRun& seen) {
    try {
      parts::write_child_answer(out, format_partial_answer(seen));
    } catch (const std::exception&) {
      std::_Exit(2);
    }
    std::_Exit(0);  // no destructor, no CUDA call: each would wait for the hung kernel
  };
  return format_partial_answer(gpu_last_block_divergent(make_partial_spec(run.ctx.seed), kWatchMs, on_hang));
}

}  // namespace cudasync::threadfence
