#include "techniques/named_barriers/named_barriers_model.hpp"

#include <algorithm>

#include "techniques/named_barriers/named_barriers_lesson.hpp"

namespace cudasync::named_barriers {

std::string to_string(CountRule r) {
  switch (r) {
    case CountRule::exact: return say("model.rule-exact");
    case CountRule::round_up: return say("model.rule-round-up");
    case CountRule::round_down: return say("model.rule-round-down");
  }
  return say("model.rule-exact");
}

int needed_threads(int count, int cta_threads, CountRule rule) {
  const int whole_cta = (cta_threads + kWarpSize - 1) / kWarpSize * kWarpSize;
  if (count == 0) return whole_cta;
  switch (rule) {
    case CountRule::round_down: return std::max(kWarpSize, count / kWarpSize * kWarpSize);
    case CountRule::round_up:
    case CountRule::exact: return (count + kWarpSize - 1) / kWarpSize * kWarpSize;
  }
  return count;
}

std::vector<const Phase*> Simulation::phases_of(int id) const {
  std::vector<const Phase*> out;
  for (const auto& p : phases)
    if (p.id == id) out.push_back(&p);
  return out;
}

Simulation simulate(const std::vector<WarpProgram>& warps, int cta_threads, CountRule rule) {
  struct Barrier {
    int arrived = 0;
    int needed = 0;
    int count = -1;  // the count the first arrival of this phase gave
    std::vector<int> warps, waiting;
  };
  Simulation sim;
  std::array<Barrier, kBarrierCount> bars{};
  const std::size_t n = warps.size();
  std::vector<std::size_t> pc(n, 0);
  std::vector<bool> blocked(n, false);
  std::vector<bool> broken(n, false);  // stopped at a hazard
  bool progress = true;
  while (progress) {
    progress = false;
    for (std::size_t w = 0; w < n; ++w) {
      if (blocked[w] || broken[w] || pc[w] >= warps[w].size()) continue;
      const Step& s = warps[w][pc[w]];
      Barrier& b = bars[static_cast<std::size_t>(s.id)];
      const int wi = static_cast<int>(w);
      if (rule == CountRule::exact && s.count % kWarpSize != 0) {
        sim.hazards.push_back(say("model.hazard-count", {{"warp", w}, {"count", s.count}}));
        broken[w] = true;
        continue;
      }
      if (std::find(b.warps.begin(), b.warps.end(), wi) != b.warps.end()) {
        sim.hazards.push_back(say("model.hazard-twice", {{"warp", w}, {"id", s.id}}));
        broken[w] = true;
        continue;
      }
      if (b.count >= 0 && b.count != s.count)
        sim.hazards.push_back(say("model.hazard-counts", {{"id", s.id}, {"first", b.count}, {"second", s.count}}));
      if (b.count < 0) {
        b.count = s.count;
        b.needed = needed_threads(s.count, cta_threads, rule);
      }
      b.arrived += kWarpSize;
      b.warps.push_back(wi);
      progress = true;
      if (s.kind == StepKind::arrive) {
        ++pc[w];
      } else {
        b.waiting.push_back(wi);
        blocked[w] = true;
      }
      if (b.arrived >= b.needed) {
        Phase p;
        p.id = s.id;
        p.index = sim.completed[static_cast<std::size_t>(s.id)]++;
        p.needed_threads = b.needed;
        p.warps = b.warps;
        p.waited = b.waiting;
        for (int v : b.waiting) {
          blocked[static_cast<std::size_t>(v)] = false;
          ++pc[static_cast<std::size_t>(v)];
        }
        sim.phases.push_back(std::move(p));
        b = Barrier{};
      }
    }
  }
  for (std::size_t w = 0; w < n; ++w) {
    if (!blocked[w]) continue;
    const Step& s = warps[w][pc[w]];
    const Barrier& b = bars[static_cast<std::size_t>(s.id)];
    sim.stuck.push_back({static_cast<int>(w), s.id, b.arrived, b.needed});
  }
  return sim;
}

std::vector<WarpProgram> groups_program(const GroupsSpec& spec) {
  std::vector<WarpProgram> out;
  for (int g = 0; g < 2; ++g)
    for (int w = 0; w < spec.warps(g); ++w) {
      WarpProgram p;
      for (int ph = 0; ph < spec.phases; ++ph) p.push_back({StepKind::sync, spec.ids[g], spec.threads[g]});
      out.push_back(std::move(p));
    }
  return out;
}

std::vector<WarpProgram> pc_program(const PcSpec& spec) {
  const int count = spec.block_threads();
  std::vector<WarpProgram> out;
  for (int w = 0; w < spec.producer_warps(); ++w) {
    WarpProgram p;
    for (int r = 0; r < spec.rounds; ++r) {
      p.push_back({StepKind::arrive, spec.ids[0], count});  // slot written: full
      p.push_back({StepKind::sync, spec.ids[1], count});    // wait until read: empty
    }
    out.push_back(std::move(p));
  }
  for (int w = 0; w < spec.consumer_warps(); ++w) {
    WarpProgram p;
    for (int r = 0; r < spec.rounds; ++r) {
      p.push_back({StepKind::sync, spec.ids[0], count});
      p.push_back({StepKind::arrive, spec.ids[1], count});
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<WarpProgram> misuse_program(const MisuseCase& c, int id) {
  return std::vector<WarpProgram>(static_cast<std::size_t>(c.waiting_warps()), WarpProgram{{StepKind::sync, id, c.count}});
}

RedTotals model_red(const std::vector<std::int32_t>& predicate) {
  RedTotals t;
  t.all = 1;
  for (auto p : predicate) {
    t.count += p != 0 ? 1 : 0;
    t.all = t.all && p != 0 ? 1 : 0;
    t.any = t.any || p != 0 ? 1 : 0;
  }
  return t;
}

std::vector<std::int32_t> model_consumed(const PcSpec& spec) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(spec.rounds * spec.producers));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = spec.input[i];
  return out;
}

MisusePrediction predict_misuse(const MisuseCase& c, CountRule rule) {
  MisusePrediction p;
  p.rule = rule;
  // Waiting warps arrive one after another (the kernel staggers them), so a phase that a warp
  // completes is over before the next warp arrives.
  const int needed = needed_threads(c.count, c.waiting_warps() * kWarpSize, rule);
  int in_phase = 0;
  for (int w = 0; w < c.waiting_warps(); ++w) {
    in_phase += kWarpSize;
    if (in_phase >= needed) {
      p.phase_sizes.push_back(in_phase / kWarpSize);
      in_phase = 0;
    }
  }
  if (in_phase > 0) {
    p.rescues = (needed - in_phase + kWarpSize - 1) / kWarpSize;
    p.phase_sizes.push_back(in_phase / kWarpSize);  // released by the rescue arrivals
  }
  return p;
}

}  // namespace cudasync::named_barriers
