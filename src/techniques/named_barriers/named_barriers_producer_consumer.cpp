// Part producer-consumer: the PTX ISA's example, bar.arrive to signal and bar.sync to wait. Also the
// rounds table and the timing checks the cuda-barrier part shows for its own run.
#include "core/report/text_format.hpp"
#include "techniques/named_barriers/named_barriers_gpu.hpp"
#include "techniques/named_barriers/named_barriers_judge.hpp"
#include "techniques/named_barriers/named_barriers_lesson.hpp"

namespace cudasync::named_barriers {

namespace {

using I = std::int64_t;
using report::Format;
using report::RowMark;
using report::Value;

std::string rounds_detail(const std::vector<int>& bad, int rounds) {
  return bad.empty() ? std::to_string(rounds) + " rounds" : "rounds " + report::list_of(bad) + " broke the order";
}

void add_trace(report::Section& s, const PcSpec& spec, const PcResult& r) {
  const int pw = spec.producer_warps(), warps = spec.block_threads() / kWarpSize;
  long long origin = pc_stamp(spec, r, 0, 0, 0);
  for (int w = 0; w < warps; ++w) origin = std::min(origin, pc_stamp(spec, r, w, 0, 0));
  report::Table t("trace", "trace: clock64 cycles after the first stamp, lane 0 of each warp");
  t.column("warp", "warp").column("role", "role").column("round", "round");
  t.column("full-in", "full: in", Format::cycles).column("full-out", "full: out", Format::cycles);
  t.column("between", "between", Format::cycles).column("empty-in", "empty: in", Format::cycles);
  t.column("empty-out", "empty: out", Format::cycles);
  for (int w = 0; w < warps; ++w)
    for (int round = 0; round < spec.rounds; ++round) {
      const auto at = [&](int k) { return Value{static_cast<I>(pc_stamp(spec, r, w, round, k) - origin)}; };
      const bool producer = w < pw;
      // Stamps (named_barriers.hpp): a producer arrives at full (t0, on at t1), has fetched (t2), waits on
      // empty (t2 -> t3); a consumer waits on full (t0 -> t1), has read (t2) and arrives at empty (t2).
      t.row({{"warp", static_cast<I>(w)}, {"role", std::string(producer ? "producer" : "consumer")},
             {"round", static_cast<I>(round)}, {"full-in", at(0)}, {"full-out", at(1)}, {"between", at(2)},
             {"empty-in", at(2)}, {"empty-out", producer ? at(3) : Value{report::Undefined{}}}});
    }
  t.legend.push_back("producers: full in/out = the signal on full and the next instruction (no wait); between = "
                     "the next value fetched; empty in/out = the wait for the consumers");
  t.legend.push_back("consumers: full in/out = the wait for the producers; between = the slots read; empty in = "
                     "the signal on empty (no wait, so no out)");
  s.add(std::move(t));
}

}  // namespace

void add_rounds(report::Section& s, const PcSpec& spec, const std::optional<PcResult>& gpu) {
  const auto model = model_consumed(spec);
  report::Table t("rounds", "what went through the slots, round by round");
  t.column("round", "round").column("slots", "slots").column("first", "slot 0 (model)");
  t.column("last", "slot " + std::to_string(spec.producers - 1) + " (model)");
  std::optional<RoundsVerdict> v;
  if (gpu) {
    v = judge_rounds(spec, gpu->consumed);
    t.column("gpu-equal", "consumed = produced (gpu, of " + std::to_string(spec.producers) + ")");
  }
  for (int r = 0; r < spec.rounds; ++r) {
    const auto base = static_cast<std::size_t>(r * spec.producers);
    std::vector<std::pair<std::string, Value>> cells{
        {"round", static_cast<I>(r)},
        {"slots", static_cast<I>(spec.producers)},
        {"first", static_cast<I>(model[base])},
        {"last", static_cast<I>(model[base + static_cast<std::size_t>(spec.producers) - 1])}};
    RowMark mark = RowMark::none;
    if (v) {
      const int equal = v->equal[static_cast<std::size_t>(r)];
      cells.emplace_back("gpu-equal", static_cast<I>(equal));
      if (equal != spec.producers) mark = RowMark::mismatch;
    }
    t.row(cells, mark);
  }
  s.add(std::move(t));
  if (v)
    s.agreement("gpu-agrees", "every value consumed equals the value produced", v->passed(),
                v->passed() ? std::to_string(v->equal_total) + " of " + std::to_string(model.size()) + " values, " +
                                  std::to_string(spec.rounds) + " rounds"
                            : "rounds " + report::list_of(v->bad_rounds) + " differ");
}

void add_pc_timing(report::Section& s, const PcSpec& spec, const PcResult& r, bool trace, const PcNames& names) {
  const PcTiming t = pc_timing(spec, r);
  s.fact("arrive-cycles", "producer " + names.arrive + ", median", static_cast<I>(t.arrive_cycles), Format::cycles,
         "from the signal to the next instruction: it does not wait");
  s.fact("full-wait-cycles", "consumer " + names.full_wait + ", median", static_cast<I>(t.full_wait_cycles),
         Format::cycles, "waiting for the producers");
  s.fact("empty-wait-cycles", "producer " + names.empty_wait + ", median", static_cast<I>(t.empty_wait_cycles),
         Format::cycles, "waiting for the consumers to read");
  if (r.ns_per_cycle > 0)
    s.fact("sm-clock-ghz", "SM clock during the run, GHz", 1.0 / r.ns_per_cycle, Format::plain,
           "clock64 against %globaltimer");
  s.check("consumers-waited", "consumers left the full barrier only after the last producer had arrived, every round",
          t.consumers_waited(), rounds_detail(t.bad_full_rounds, spec.rounds));
  s.check("producers-waited", "producers left the empty barrier only after the last consumer had read, every round",
          t.producers_waited(), rounds_detail(t.bad_empty_rounds, spec.rounds));
  if (trace) add_trace(s, spec, r);
}

report::Section producer_consumer_part(Run& run) {
  const PcSpec& spec = run.in.pc;
  const Simulation sim = simulate(pc_program(spec), spec.block_threads());
  std::optional<PcResult> gpu;
  if (run.ctx.gpu) gpu = gpu_producer_consumer(spec);
  const std::string n = std::to_string(spec.block_threads());
  const std::string full = std::to_string(spec.ids[0]), empty = std::to_string(spec.ids[1]);

  report::Section s("producer-consumer", "producer/consumer: bar.arrive to signal, bar.sync to wait (the PTX ISA's example)");
  s.paragraph("producers (" + role_range(0, spec.producers) + "): st.shared slot; bar.arrive " + full + ", " + n +
              "; ld.global next; bar.sync " + empty + ", " + n + ".  consumers (" +
              role_range(spec.producers, spec.consumers) + "): bar.sync " + full + ", " + n +
              "; ld.shared slot; bar.arrive " + empty + ", " + n + ".");
  s.paragraph(
      "Barrier " + full + " completes when all " + n + " threads have arrived: the producers by bar.arrive, which "
      "does not wait, the consumers by bar.sync, which does. So a consumer reads only after every producer wrote, while "
      "the producers are already fetching the next value. Barrier " + empty +
      " is the way back: the producers wait there until every consumer has read. bar.arrive also makes the "
      "producer's earlier stores visible to the threads of the barrier when it completes (PTX ISA, \"bar, barrier\").");
  s.fact("block-threads", "thread count of both barriers", static_cast<I>(spec.block_threads()), Format::count,
         std::to_string(spec.producers) + " producers + " + std::to_string(spec.consumers) + " consumers");
  s.fact("rounds", "rounds", static_cast<I>(spec.rounds), Format::count, "one phase of each barrier per round");
  report::Table phases = phase_table("barrier phases (reference model)");
  for (const Phase& p : sim.phases) phases.row(phase_cells(p));
  s.add(std::move(phases));
  check_model_finishes(s, sim, "the producer/consumer program");
  add_rounds(s, spec, gpu);
  if (gpu)
    add_pc_timing(s, spec, *gpu, run.in.trace, {"bar.arrive " + full, "bar.sync " + full, "bar.sync " + empty});
  else
    s.note("the values the GPU consumed and the arrival/wait stamps (--trace) need a GPU");
  return s;
}

}  // namespace cudasync::named_barriers
