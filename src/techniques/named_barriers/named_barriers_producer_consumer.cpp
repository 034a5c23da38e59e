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
  return bad.empty() ? say("pc.rounds-ok", {{"rounds", rounds}}) : say("pc.rounds-broke", {{"rounds", report::list_of(bad)}});
}

void add_trace(report::Section& s, const PcSpec& spec, const PcResult& r) {
  const int pw = spec.producer_warps(), warps = spec.block_threads() / kWarpSize;
  long long origin = pc_stamp(spec, r, 0, 0, 0);
  for (int w = 0; w < warps; ++w) origin = std::min(origin, pc_stamp(spec, r, w, 0, 0));
  report::Table t("trace", say("pc.trace-title"));
  t.column("warp", say("phases.warp")).column("role", say("pc.role")).column("round", say("pc.round"));
  t.column("full-in", say("pc.full-in"), Format::cycles).column("full-out", say("pc.full-out"), Format::cycles);
  t.column("between", say("pc.between"), Format::cycles).column("empty-in", say("pc.empty-in"), Format::cycles);
  t.column("empty-out", say("pc.empty-out"), Format::cycles);
  for (int w = 0; w < warps; ++w)
    for (int round = 0; round < spec.rounds; ++round) {
      const auto at = [&](int k) { return Value{static_cast<I>(pc_stamp(spec, r, w, round, k) - origin)}; };
      const bool producer = w < pw;
      // Stamps (named_barriers.hpp): a producer arrives at full (t0, on at t1), has fetched (t2), waits on
      // empty (t2 -> t3); a consumer waits on full (t0 -> t1), has read (t2) and arrives at empty (t2).
      t.row({{"warp", static_cast<I>(w)}, {"role", say(producer ? "pc.producer" : "pc.consumer")},
             {"round", static_cast<I>(round)}, {"full-in", at(0)}, {"full-out", at(1)}, {"between", at(2)},
             {"empty-in", at(2)}, {"empty-out", producer ? at(3) : Value{report::Undefined{}}}});
    }
  t.legend.push_back(say("pc.legend-producers"));
  t.legend.push_back(say("pc.legend-consumers"));
  s.add(std::move(t));
}

}  // namespace

void add_rounds(report::Section& s, const PcSpec& spec, const std::optional<PcResult>& gpu) {
  const auto model = model_consumed(spec);
  report::Table t("rounds", say("pc.rounds-title"));
  t.column("round", say("pc.round")).column("slots", say("pc.slots")).column("first", say("pc.slot-model", {{"slot", 0}}));
  t.column("last", say("pc.slot-model", {{"slot", spec.producers - 1}}));
  std::optional<RoundsVerdict> v;
  if (gpu) {
    v = judge_rounds(spec, gpu->consumed);
    t.column("gpu-equal", say("pc.gpu-equal", {{"producers", spec.producers}}));
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
    s.agreement("gpu-agrees", say("pc.gpu-agrees"), v->passed(),
                v->passed() ? say("pc.gpu-agrees-yes", {{"equal", v->equal_total}, {"values", model.size()}, {"rounds", spec.rounds}})
                            : say("pc.gpu-agrees-no", {{"rounds", report::list_of(v->bad_rounds)}}));
}

void add_pc_timing(report::Section& s, const PcSpec& spec, const PcResult& r, bool trace, const PcNames& names) {
  const PcTiming t = pc_timing(spec, r);
  s.fact("arrive-cycles", say("pc.producer-median", {{"call", names.arrive}}), static_cast<I>(t.arrive_cycles),
         Format::cycles, say("pc.arrive-note"));
  s.fact("full-wait-cycles", say("pc.consumer-median", {{"call", names.full_wait}}), static_cast<I>(t.full_wait_cycles),
         Format::cycles, say("pc.full-wait-note"));
  s.fact("empty-wait-cycles", say("pc.producer-median", {{"call", names.empty_wait}}),
         static_cast<I>(t.empty_wait_cycles), Format::cycles, say("pc.empty-wait-note"));
  if (r.ns_per_cycle > 0)
    s.fact("sm-clock-ghz", say("pc.sm-clock"), 1.0 / r.ns_per_cycle, Format::plain, say("pc.sm-clock-note"));
  s.check("consumers-waited", say("pc.consumers-waited"), t.consumers_waited(), rounds_detail(t.bad_full_rounds, spec.rounds));
  s.check("producers-waited", say("pc.producers-waited"), t.producers_waited(),
          rounds_detail(t.bad_empty_rounds, spec.rounds));
  if (trace) add_trace(s, spec, r);
}

report::Section producer_consumer_part(Run& run) {
  const PcSpec& spec = run.in.pc;
  const Simulation sim = simulate(pc_program(spec), spec.block_threads());
  std::optional<PcResult> gpu;
  if (run.ctx.gpu) gpu = gpu_producer_consumer(spec);
  const std::string n = std::to_string(spec.block_threads());
  const std::string full = std::to_string(spec.ids[0]), empty = std::to_string(spec.ids[1]);

  report::Section s("producer-consumer", say("pc.title"));
  s.paragraph(say("pc.code", {{"producers", role_range(0, spec.producers)},
                              {"consumers", role_range(spec.producers, spec.consumers)},
                              {"full", full},
                              {"empty", empty},
                              {"n", n}}));
  s.paragraph(say("pc.about", {{"full", full}, {"empty", empty}, {"n", n}}));
  s.fact("block-threads", say("pc.block-threads"), static_cast<I>(spec.block_threads()), Format::count,
         say("pc.block-threads-note", {{"producers", spec.producers}, {"consumers", spec.consumers}}));
  s.fact("rounds", say("pc.rounds"), static_cast<I>(spec.rounds), Format::count, say("pc.rounds-note"));
  report::Table phases = phase_table(say("pc.phases-title"));
  for (const Phase& p : sim.phases) phases.row(phase_cells(p));
  s.add(std::move(phases));
  check_model_finishes(s, sim, say("pc.program"));
  add_rounds(s, spec, gpu);
  if (gpu)
    add_pc_timing(s, spec, *gpu, run.in.trace, {"bar.arrive " + full, "bar.sync " + full, "bar.sync " + empty});
  else
    s.note(say("pc.needs-gpu"));
  return s;
}

}  // namespace cudasync::named_barriers
