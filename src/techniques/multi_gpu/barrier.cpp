// Parts barrier and all-reduce. barrier: one computation of many phases across two GPUs, a barrier
// between each two phases, built three ways: cudasync's own (device-scope counters, system-scope
// release stores into the peer's flag), NCCL's all-reduce of one integer, and each stream waiting
// for the other's event. The model computes the values every method must leave and steps the peer
// protocol through random interleavings; the GPUs run each method and time one barrier.
// all-reduce: a large array of 32-bit integers on each GPU, summed element by element into both:
// NCCL's ncclAllReduce against one made by hand from the peer barrier and peer reads and writes.
// Every output element is checked against the model's sum; bandwidth and the ratio to NCCL come from
// the same run.
#include <algorithm>

#include "core/errors.hpp"
#include "core/log.hpp"
#include "core/report/text_format.hpp"
#include "techniques/multi_gpu/lesson.hpp"

namespace cudasync::multi_gpu {

// ---- the barrier: values ------------------------------------------------------------------------

std::vector<std::uint32_t> start_values(const BarrierSpec& s, std::uint64_t seed) {
  std::vector<std::uint32_t> x(static_cast<std::size_t>(kGpus) * static_cast<std::size_t>(s.values()));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = start_value(seed, i);
  return x;
}

std::vector<std::uint32_t> model_values(const BarrierSpec& s, std::uint64_t seed) {
  std::vector<std::uint32_t> cur = start_values(s, seed), next(cur.size());
  const std::size_t n = cur.size(), m = static_cast<std::size_t>(s.values()), t = static_cast<std::size_t>(s.threads);
  for (int p = 1; p <= s.phases; ++p) {
    for (std::size_t g = 0; g < n; ++g) next[g] = mix(cur[g], cur[(g + m + 1) % n], cur[(g + t) % n], p);
    cur.swap(next);
  }
  return cur;
}

// ---- the barrier: the protocol ------------------------------------------------------------------

namespace {

struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
};

struct BlockState {
  unsigned barrier = 1;
  int pc = 0;  // 0 arrive, 1 publish on its own GPU, 2 publish on the other, 3 poll
  bool waited = false;
};

std::string pair_text(unsigned a, unsigned b, const char* sep) { return std::to_string(a) + sep + std::to_string(b); }

}  // namespace

ProtocolSim simulate_protocol(int blocks, int barriers, int schedules, std::uint64_t seed, bool cross_gpu) {
  ProtocolSim out;
  out.blocks = blocks;
  out.barriers = barriers;
  out.schedules = schedules;
  out.cross_gpu = cross_gpu;
  const int total = kGpus * blocks;
  for (int sc = 0; sc < schedules; ++sc) {
    Rng rng{seed * 1000003ull + static_cast<std::uint64_t>(sc)};
    unsigned counter[kGpus] = {0, 0};
    unsigned flags[kGpus][kGpus] = {{0, 0}, {0, 0}};  // flags[copy on GPU][of GPU]
    std::vector<BlockState> st(static_cast<std::size_t>(total));
    std::vector<int> arrivals(static_cast<std::size_t>(barriers) + 1, 0);
    int finished = 0;
    bool early = false;
    for (long guard = 0; finished < total && guard < 10'000'000L; ++guard) {
      const int id = rng.below(total);
      BlockState& b = st[static_cast<std::size_t>(id)];
      if (b.barrier > static_cast<unsigned>(barriers)) continue;
      const int g = id / blocks, o = 1 - g;
      const unsigned k = b.barrier;
      std::string action;
      bool record = true;
      if (b.pc == 0) {
        const unsigned before = counter[g]++;
        ++arrivals[k];
        const bool last = before == k * static_cast<unsigned>(blocks) - 1u;
        b.pc = last ? 1 : 3;
        action = last ? say("step.arrive-last", {{"counter", pair_text(before, before + 1, " -> ")}, {"gpu", g}})
                      : say("step.arrive", {{"counter", pair_text(before, before + 1, " -> ")}});
      } else if (b.pc == 1) {
        flags[g][g] = k;
        b.pc = cross_gpu ? 2 : 3;
        action = say("step.publish", {{"flag", g}, {"barrier", k}, {"gpu", g}});
      } else if (b.pc == 2) {
        flags[o][g] = k;
        b.pc = 3;
        action = say("step.publish-peer", {{"flag", g}, {"barrier", k}, {"gpu", o}});
      } else {
        const bool pass = cross_gpu ? flags[g][0] >= k && flags[g][1] >= k : flags[g][g] >= k;
        if (!pass) {
          record = !b.waited;
          b.waited = true;
          action = say("step.poll-wait");
        } else {
          if (arrivals[k] < total && !early) {
            early = true;
            ++out.early;
            if (out.first_early.empty())
              out.first_early = say("step.first-early", {{"schedule", sc + 1},
                                                         {"gpu", g},
                                                         {"block", id % blocks},
                                                         {"barrier", k},
                                                         {"arrivals", arrivals[k]},
                                                         {"total", total}});
          }
          action = say("step.poll-pass");
          b.waited = false;
          b.pc = 0;
          if (++b.barrier > static_cast<unsigned>(barriers)) ++finished;
        }
      }
      if (sc == 0 && record) {
        ProtocolStep s;
        s.gpu = g;
        s.block = id % blocks;
        s.barrier = static_cast<int>(k);
        s.action = action;
        s.counters = pair_text(counter[0], counter[1], " | ");
        for (int c = 0; c < kGpus; ++c) s.flags[c] = pair_text(flags[c][0], flags[c][1], ",");
        out.steps.push_back(std::move(s));
      }
    }
  }
  return out;
}

ValuesDiff compare_values(const std::vector<std::uint32_t>& gpu, const std::vector<std::uint32_t>& model) {
  ValuesDiff d;
  d.compared = std::max(gpu.size(), model.size());
  for (std::size_t i = 0; i < d.compared; ++i) {
    const bool same = i < gpu.size() && i < model.size() && gpu[i] == model[i];
    if (same) continue;
    if (d.first < 0) d.first = static_cast<std::int64_t>(i);
    ++d.differ;
  }
  return d;
}

double gbps(std::uint64_t bytes, double ns) { return ns > 0 ? static_cast<double>(bytes) / ns : 0.0; }

std::vector<double> gbps_samples(std::uint64_t bytes, const std::vector<double>& ns) {
  std::vector<double> out;
  for (double t : ns) out.push_back(gbps(bytes, t));
  return out;
}


namespace {

using I = std::int64_t;
using report::Format;

constexpr int kBarrierReps = 5, kK1 = 20, kK2 = 120;  // barriers per timed run, as a difference
constexpr int kSchedules = 1000, kSimBlocks = 3, kSimBarriers = 3;

report::Table protocol_table(const ProtocolSim& sim) {
  report::Table t("protocol", say("barrier.protocol-title"));
  t.column("step", say("barrier.step"), Format::count).column("who", say("barrier.who")).column("action", say("barrier.action"));
  t.column("counters", say("barrier.counters")).column("flags-0", say("barrier.on-0")).column("flags-1", say("barrier.on-1"));
  I n = 0;
  for (const auto& st : sim.steps)
    t.row({{"step", ++n},
           {"who", std::to_string(st.gpu) + "/" + std::to_string(st.block)},
           {"action", st.action},
           {"counters", st.counters},
           {"flags-0", st.flags[0]},
           {"flags-1", st.flags[1]}});
  t.legend.push_back(say("barrier.protocol-legend"));
  return t;
}

}  // namespace

const char* method_key(Method m) {
  static const char* const keys[kMethods] = {"peer", "nccl", "event"};
  return keys[static_cast<int>(m)];
}

report::Section barrier_section(const BarrierSpec& spec, const std::vector<std::uint32_t>& model,
                                const std::vector<MethodResult>& results, bool gpu_run, std::uint64_t seed) {
  report::Section s("barrier", say("barrier.title"));
  s.paragraph(say("barrier.about", {{"values", report::grouped(model.size())}, {"phases", spec.phases}}));
  static const char* const kHow[kMethods] = {"barrier.how-peer", "barrier.how-nccl", "barrier.how-event"};
  for (const auto& r : results) s.paragraph(say(kHow[static_cast<int>(r.method)]));
  s.paragraph(say("barrier.cuda-13"));
  s.fact("blocks", say("barrier.blocks"), static_cast<I>(spec.blocks), Format::count);
  s.fact("threads", say("barrier.threads"), static_cast<I>(spec.threads), Format::count);
  s.fact("phases", say("barrier.phases"), static_cast<I>(spec.phases), Format::count,
         say("barrier.barriers", {{"count", spec.phases - 1}}));

  // The protocol, step by step, and over many interleavings with and without the other GPU's flag.
  s.add(protocol_table(simulate_protocol(2, 1, 1, seed, true)));
  const ProtocolSim cross = simulate_protocol(kSimBlocks, kSimBarriers, kSchedules, seed, true);
  const ProtocolSim local = simulate_protocol(kSimBlocks, kSimBarriers, kSchedules, seed, false);
  s.fact("early-cross-gpu", say("barrier.early-cross-gpu"), static_cast<I>(cross.early), Format::count,
         say("barrier.interleavings-note",
             {{"schedules", report::grouped(kSchedules)}, {"blocks", kSimBlocks}, {"barriers", kSimBarriers}}));
  s.fact("early-own-gpu", say("barrier.early-own-gpu"), static_cast<I>(local.early), Format::count,
         local.first_early.empty() ? say("barrier.one-gpu-barrier") : local.first_early);
  s.check("protocol-model", say("barrier.protocol-model"), cross.early == 0,
          cross.early == 0 ? say("barrier.interleavings", {{"count", report::grouped(kSchedules)}}) : cross.first_early);

  report::Table t("methods", say("barrier.methods-title"));
  t.column("method", say("barrier.method")).column("values", say("barrier.final-values"));
  t.column("ns", say("barrier.ns-per-barrier"), Format::ns).column("vs-nccl", say("vs-nccl"), Format::ratio);
  double nccl_ns = 0;
  for (const auto& r : results)
    if (r.method == Method::nccl && !r.ns.empty()) nccl_ns = report::median(r.ns);
  for (const auto& r : results) {
    const std::string key = method_key(r.method);
    report::Value values = report::NeedsGpu{}, ns = report::NeedsGpu{}, ratio = report::NeedsGpu{};
    report::RowMark mark = report::RowMark::none;
    if (!r.waived.empty()) {
      values = say("waived");
      ns = ratio = report::Undefined{};
    } else if (r.run) {
      const ValuesDiff d = compare_values(r.run->values, model);
      values = d.same() ? say("barrier.agree") : say("barrier.differ", {{"count", report::grouped(d.differ)}});
      ns = ratio = report::Undefined{};
      if (!r.ns.empty()) {
        ns = report::median(r.ns);
        if (nccl_ns > 0) ratio = report::median(r.ns) / nccl_ns;
      }
      const std::string differ = say("barrier.values-differ", {{"differ", report::grouped(d.differ)},
                                                               {"compared", report::grouped(d.compared)},
                                                               {"first", d.first}});
      mark = s.agreement("values-" + key, say("barrier.final-values-under", {{"method", key}}), d.same(),
                         d.same() ? say("barrier.values-bit-for-bit", {{"count", report::grouped(d.compared)}})
                         : r.run->deadline_hit ? say("barrier.gave-up", {{"what", differ}})
                                               : differ);
    }
    t.row({{"method", key}, {"values", values}, {"ns", ns}, {"vs-nccl", ratio}}, mark);
    if (gpu_run && r.waived.empty())
      s.add(report::measured("ns-" + key, say("barrier.measured", {{"method", key}}), Format::ns, r.ns, true,
                             say("barrier.measured-how", {{"k1", kK1}, {"k2", kK2}, {"k", kK2 - kK1}})));
    if (!r.waived.empty()) s.note(say("method-waived", {{"method", key}, {"why", r.waived}}));
  }
  s.add(std::move(t));
  if (!gpu_run) {
    s.note(say("barrier.no-gpu"));
    return s;
  }
  bool deadline = false;
  for (const auto& r : results) deadline = deadline || r.timing_deadline_hit || (r.run && r.run->deadline_hit);
  s.check("no-deadline", say("no-deadline"), !deadline, say(deadline ? "barrier.spin-gave-up" : "barrier.every-released"));
  s.note(say("barrier.launch-note"));
  return s;
}

report::Section barrier_part(Run& run) {
  run.require_peer("barrier");
  const std::vector<std::uint32_t> model = model_values(run.barrier, run.ctx.seed);
  std::vector<MethodResult> results;
  for (int i = 0; i < kMethods; ++i) {
    MethodResult r;
    r.method = static_cast<Method>(i);
    if (run.ctx.gpu) {
      const log::Timed timed(std::string("multi-gpu: barrier by ") + method_key(r.method));
      NcclComms* nccl = nullptr;
      if (r.method == Method::nccl && !(nccl = run.open_nccl())) r.waived = run.nccl_waiver;
      if (r.waived.empty()) {
        r.run = gpu_barrier_run(r.method, run.dev[0], run.dev[1], run.barrier,
                                start_values(run.barrier, run.ctx.seed), nccl);
        const BarrierTiming t = gpu_barrier_ns(r.method, run.dev[0], run.dev[1], run.barrier, kBarrierReps, kK1, kK2, nccl);
        r.ns = t.ns;
        r.timing_deadline_hit = t.deadline_hit;
      }
    }
    results.push_back(std::move(r));
  }
  return barrier_section(run.barrier, model, results, run.ctx.gpu, run.ctx.seed);
}

namespace {

using I = std::int64_t;
using report::Format;

constexpr int kAllReduceReps = 5, kIterations = 5;
constexpr int kShown = 4;  // elements of the model's sum shown

}  // namespace

const char* reduce_key(Reduce r) { return r == Reduce::nccl ? "nccl" : "peer"; }

report::Section all_reduce_section(std::uint64_t elements, std::uint64_t seed, const std::vector<ReduceResult>& results,
                                   bool gpu_run) {
  report::Section s("all-reduce", say("all-reduce.title"));
  const std::uint64_t bytes = elements * 4;
  s.paragraph(say("all-reduce.about", {{"elements", report::grouped(elements)}}));
  s.paragraph(say("all-reduce.bandwidth"));
  s.fact("elements", say("all-reduce.elements"), static_cast<I>(elements), Format::count);
  s.fact("bytes", say("all-reduce.bytes"), static_cast<I>(bytes), Format::bytes);
  report::Table sums("model", say("all-reduce.model-title"));
  sums.column("i", "i", Format::count).column("a", say("all-reduce.input-a"), Format::hex32);
  sums.column("b", say("all-reduce.input-b"), Format::hex32).column("sum", say("all-reduce.sum"), Format::hex32);
  for (std::uint64_t i = 0; i < std::min<std::uint64_t>(kShown, elements); ++i)
    sums.row({{"i", static_cast<I>(i)},
              {"a", static_cast<I>(input_value(seed, 0, i))},
              {"b", static_cast<I>(input_value(seed, 1, i))},
              {"sum", static_cast<I>(reduced_value(seed, i))}});
  s.add(std::move(sums));

  report::Table t("methods", say("all-reduce.methods-title"));
  t.column("method", say("barrier.method")).column("outputs", say("all-reduce.outputs"));
  t.column("gbps", "GB/s", Format::gbps).column("vs-nccl", say("vs-nccl"), Format::ratio);
  double nccl_gbps = 0;
  for (const auto& r : results)
    if (r.method == Reduce::nccl && r.run && !r.run->ns.empty()) nccl_gbps = gbps(bytes, report::median(r.run->ns));
  for (const auto& r : results) {
    const std::string key = reduce_key(r.method);
    report::Value outputs = report::NeedsGpu{}, bw = report::NeedsGpu{}, ratio = report::NeedsGpu{};
    report::RowMark mark = report::RowMark::none;
    if (!r.waived.empty()) {
      outputs = say("waived");
      bw = ratio = report::Undefined{};
      s.note(say("method-waived", {{"method", key}, {"why", r.waived}}));
    } else if (r.run) {
      const ReduceRun& g = *r.run;
      const std::uint64_t bad = g.mismatches[0] + g.mismatches[1];
      outputs = bad == 0 ? say("all-reduce.exact") : say("all-reduce.wrong", {{"count", report::grouped(bad)}});
      const double b = g.ns.empty() ? 0.0 : gbps(bytes, report::median(g.ns));
      bw = b;
      ratio = nccl_gbps > 0 ? report::Value{b / nccl_gbps} : report::Value{report::Undefined{}};
      const std::string wrong = say("all-reduce.outputs-wrong", {{"a", report::grouped(g.mismatches[0])},
                                                                 {"b", report::grouped(g.mismatches[1])},
                                                                 {"first", g.first_mismatch}});
      mark = s.agreement("sums-" + key, say("all-reduce.every-element", {{"method", key}}), bad == 0,
                         bad == 0         ? say("all-reduce.elements-checked", {{"count", report::grouped(elements)}})
                         : g.deadline_hit ? say("all-reduce.spin-gave-up", {{"what", wrong}})
                                          : wrong);
      s.add(report::measured("gbps-" + key, say("all-reduce.measured", {{"method", key}}), Format::gbps,
                             gbps_samples(bytes, g.ns), true, say("all-reduce.measured-how", {{"iterations", kIterations}})));
    }
    t.row({{"method", key}, {"outputs", outputs}, {"gbps", bw}, {"vs-nccl", ratio}}, mark);
  }
  s.add(std::move(t));
  if (!gpu_run) s.note(say("all-reduce.no-gpu"));
  return s;
}

report::Section all_reduce_part(Run& run) {
  const std::uint64_t elements = static_cast<std::uint64_t>(run.options.mib) * (1u << 20) / 4;
  std::vector<ReduceResult> results(kReduces);
  results[0].method = Reduce::nccl;
  results[1].method = Reduce::peer;
  if (run.ctx.gpu) {
    run.require_pair("all-reduce");
    if (!run.peer_waiver.empty()) results[1].waived = run.peer_waiver;
    NcclComms* nccl = run.open_nccl();
    if (!nccl) results[0].waived = run.nccl_waiver;
    if (!results[0].waived.empty() && !results[1].waived.empty())
      throw WaivedError(say("all-reduce.both-waived", {{"nccl", results[0].waived}, {"peer", results[1].waived}}));
    for (auto& r : results)
      if (r.waived.empty())
        r.run = gpu_all_reduce(r.method, run.dev[0], run.dev[1], elements, run.ctx.seed, kAllReduceReps, kIterations,
                               run.budget_ns(), nccl);
  }
  return all_reduce_section(elements, run.ctx.seed, results, run.ctx.gpu);
}

}  // namespace cudasync::multi_gpu
