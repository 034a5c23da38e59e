#include "techniques/multi_gpu/multi_gpu_model.hpp"

#include <algorithm>

#include "techniques/multi_gpu/multi_gpu_lesson.hpp"

namespace cudasync::multi_gpu {

// ---- fences by name ------------------------------------------------------------------------------

const std::vector<std::string>& fence_names() {
  static const std::vector<std::string> names = {"none", "device", "system", "rel-acq-device", "rel-acq-system"};
  return names;
}

const char* fence_key(Fence f) { return fence_names()[static_cast<std::size_t>(f)].c_str(); }

std::optional<Fence> parse_fence(const std::string& name) {
  const auto& n = fence_names();
  const auto it = std::find(n.begin(), n.end(), name);
  if (it == n.end()) return std::nullopt;
  return static_cast<Fence>(it - n.begin());
}

const char* fence_code(Fence f) {
  switch (f) {
    case Fence::none: return "no fence";
    case Fence::device: return "__threadfence()";
    case Fence::system: return "__threadfence_system()";
    case Fence::rel_acq_device: return "atomic_ref<thread_scope_device> release/acquire";
    case Fence::rel_acq_system: return "atomic_ref<thread_scope_system> release/acquire";
  }
  return "";
}

const char* scope_name(Scope s) {
  switch (s) {
    case Scope::none: return "";
    case Scope::cta: return ".cta";
    case Scope::gpu: return ".gpu";
    case Scope::sys: return ".sys";
  }
  return "";
}

// ---- the flag handoff ----------------------------------------------------------------------------

namespace {

// One side of the handoff as the memory model sees it.
struct Side {
  Scope pattern = Scope::none;  // the scope of its release (producer) or acquire (consumer) pattern
  Scope flag = Scope::sys;      // the scope of its strong access to the flag
  std::string ptx;
  std::string what;             // "__threadfence() is fence.sc.gpu", in the run's language
};

Side producer_side(Fence f) {
  Side s;
  const std::string data = "st.global [data], 1; ";
  switch (f) {
    case Fence::none:
      s.ptx = data + "st.relaxed.sys [flag], 1";
      break;
    case Fence::device:
      s.pattern = Scope::gpu;
      s.ptx = data + "fence.sc.gpu; st.relaxed.sys [flag], 1";
      s.what = say("model.producer-threadfence");
      break;
    case Fence::system:
      s.pattern = Scope::sys;
      s.ptx = data + "fence.sc.sys; st.relaxed.sys [flag], 1";
      break;
    case Fence::rel_acq_device:
      s.pattern = s.flag = Scope::gpu;
      s.ptx = data + "st.release.gpu [flag], 1";
      s.what = say("model.producer-release-device");
      break;
    case Fence::rel_acq_system:
      s.pattern = Scope::sys;
      s.ptx = data + "st.release.sys [flag], 1";
      break;
  }
  return s;
}

Side consumer_side(Fence f, Consumer where) {
  Side s;
  const std::string data = "; ld.global r, [data]";
  if (where == Consumer::host) {
    s.pattern = Scope::sys;  // a host thread's C++ acquire load: an acquire at system scope
    s.ptx = say("model.host-ptx");
    return s;
  }
  switch (f) {
    case Fence::none:
      s.ptx = "ld.relaxed.sys f, [flag]" + data;
      break;
    case Fence::device:
      s.pattern = Scope::gpu;
      s.ptx = "ld.relaxed.sys f, [flag]; fence.sc.gpu" + data;
      s.what = say("model.consumer-threadfence");
      break;
    case Fence::system:
      s.pattern = Scope::sys;
      s.ptx = "ld.relaxed.sys f, [flag]; fence.sc.sys" + data;
      break;
    case Fence::rel_acq_device:
      s.pattern = s.flag = Scope::gpu;
      s.ptx = "ld.acquire.gpu f, [flag]" + data;
      s.what = say("model.consumer-acquire-device");
      break;
    case Fence::rel_acq_system:
      s.pattern = Scope::sys;
      s.ptx = "ld.acquire.sys f, [flag]" + data;
      break;
  }
  return s;
}

}  // namespace

FlagVerdict flag_model(const FlagSpec& spec) {
  const Side p = producer_side(spec.producer);
  const Side c = consumer_side(spec.consumer, spec.where);
  const std::string other = say(spec.where == Consumer::host ? "model.host-thread" : "model.other-gpu-thread");
  FlagVerdict v;
  v.producer_ptx = p.ptx;
  v.consumer_ptx = c.ptx;
  if (p.pattern == Scope::none) {
    v.reason = say("model.no-release");
  } else if (c.pattern == Scope::none) {
    v.reason = say("model.no-acquire");
  } else if (p.pattern != Scope::sys) {
    v.reason = say("model.producer-gpu-scope", {{"what", p.what}, {"other", other}});
  } else if (c.pattern != Scope::sys) {
    v.reason = say("model.consumer-gpu-scope", {{"what", c.what}});
  } else if (p.flag != Scope::sys || c.flag != Scope::sys) {
    v.reason = say("model.not-morally-strong");
  } else {
    v.stale_allowed = false;
    v.reason = say("model.synchronize");
  }
  return v;
}

// ---- the barrier: values -------------------------------------------------------------------------

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

// ---- the barrier: the protocol -------------------------------------------------------------------

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

}  // namespace cudasync::multi_gpu
