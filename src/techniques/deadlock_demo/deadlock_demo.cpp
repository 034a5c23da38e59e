// deadlock-demo: options, validation, and the run that asks the GPU (when there is one) and the
// reference model the same questions. Sections are built in deadlock_demo_sections*.cpp.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <memory>

#include "core/child_process.hpp"
#include "core/errors.hpp"
#include "techniques/deadlock_demo/deadlock_demo_child.hpp"
#include "techniques/deadlock_demo/deadlock_demo_lesson.hpp"
#include "techniques/deadlock_demo/deadlock_demo_model.hpp"
#include "techniques/deadlock_demo/deadlock_demo_sections.hpp"
#if CUDASYNC_HAVE_CUDA
#include "techniques/deadlock_demo/deadlock_demo_gpu.hpp"
#endif

namespace cudasync::deadlock_demo {

namespace {

bool has(const std::vector<Scenario>& v, Scenario s) { return std::find(v.begin(), v.end(), s) != v.end(); }

std::string device_text(const RunContext& ctx) {
  if (!ctx.device) return "";
  const DeviceInfo& d = *ctx.device;
  return "GPU " + std::to_string(d.index) + ", " + d.name + ", " + std::to_string(d.sm_count) + " SMs, cc " + d.cc_string();
}

std::vector<simt::Regime> trace_regimes(const Options& o) {
  if (o.model) return {*simt::parse_regime(*o.model)};
  return {simt::Regime::lockstep, simt::Regime::independent};
}

unsigned long long deadline_ns(const Options& o) { return static_cast<unsigned long long>(o.deadline_ms) * 1000000ull; }

// The grid scenarios' default: twice what fits, so that half the grid has no slot.
int default_blocks(const Coresidency& c) { return std::clamp(2 * c.limit(), 2, kMaxBlocks); }

// The grid scenarios: the co-residency (the occupancy API's on a GPU, an H100's in the model) and
// the grid (--blocks, or twice that).
template <typename Part>
void size_grid(Part& p, Scenario sc, const Options& o, const RunContext& ctx) {
  p.deadline_ms = o.deadline_ms;
  p.c = model_coresidency();
#if CUDASYNC_HAVE_CUDA
  if (ctx.gpu) p.c = gpu_coresidency(sc, ctx.device->index);
#else
  (void)sc;
  (void)ctx;
#endif
  p.blocks = o.blocks.value_or(default_blocks(p.c));
}

// The hidden child: one barrier scenario, its health check, one answer in the file.
report::Report run_child(const Options& o, const RunContext& ctx) {
  report::Report r;
  r.technique = "deadlock-demo";
  r.title = "deadlock-demo: child process";
  const auto write = [&o](const std::string& text) {
    std::ofstream f(o.child_out);
    f << text;
    return static_cast<bool>(f);
  };
  std::string text;
#if CUDASYNC_HAVE_CUDA
  if (!ctx.gpu) throw NoGpuError("--child needs the GPU backend");
  // A hung kernel: write what the threads recorded so far and end at once. No destructor and no CUDA
  // call may run any more: each would wait for the kernel, forever.
  const OnHang on_hang = [&write](const std::vector<BarrierObservation>& cases) {
    Health none;
    none.detail = "not run: a kernel never ended, and every CUDA call would wait for it";
    (void)write(format_observations(cases, none));
    std::_Exit(0);
  };
  try {
    const auto ns = deadline_ns(o);
    const auto cases = o.child == scenario_name(Scenario::syncwarp_mask)
                           ? gpu_syncwarp_mask(ns, o.child_grace_ms, on_hang)
                           : gpu_divergent_syncthreads(ns, o.child_grace_ms, on_hang);
    text = format_observations(cases, gpu_health());
  } catch (const Error& e) {
    text = format_child_error(e.what());
  }
#else
  (void)ctx;
  throw NoGpuError("this cudasync was built without CUDA");
#endif
  if (!write(text)) throw UsageError("--child-out " + o.child_out + ": cannot write the file");
  return r;
}

std::unique_ptr<ChildProcess> start_child(Scenario s, const Options& o, const RunContext& ctx, std::string& failed) {
  try {
    return std::make_unique<ChildProcess>(self_executable(), child_args(s, o.deadline_ms, ctx.device->index),
                                          child_timeout(o.deadline_ms, false), "deadlock");
  } catch (const std::runtime_error& e) {
    failed = e.what();
    return nullptr;
  }
}

BarrierPart barrier_part(bool syncwarp, const Options& o, bool gpu, std::unique_ptr<ChildProcess>& child,
                         const std::string& start_error) {
  BarrierPart p;
  p.syncwarp = syncwarp;
  p.deadline_ms = o.deadline_ms;
  // The order the child runs them in: the one that may hang for good last.
  const std::vector<std::pair<int, BarrierVariant>> cases =
      syncwarp ? std::vector<std::pair<int, BarrierVariant>>{{kSyncwarpPresent, BarrierVariant::rescue}}
               : std::vector<std::pair<int, BarrierVariant>>{{kSyncPresentWholeWarps, BarrierVariant::rescue},
                                                             {kSyncPresentWholeWarps, BarrierVariant::if_else},
                                                             {kSyncPresent, BarrierVariant::rescue}};
  for (const auto& [present, variant] : cases) p.cases.push_back({present, variant, barrier_model(syncwarp, present, variant)});
  p.gpu = gpu;
  if (gpu) {
    if (child) p.child = child_outcome(child->finish());
    else {
      ChildOutcome failed;
      failed.message = start_error;
      p.child = failed;
    }
#if CUDASYNC_HAVE_CUDA
    p.health = gpu_health();
#endif
  }
  return p;
}

}  // namespace

std::vector<Scenario> selected_scenarios(const Options& o) {
  std::vector<Scenario> out;
  const bool all = o.scenarios.empty() || std::find(o.scenarios.begin(), o.scenarios.end(), "all") != o.scenarios.end();
  for (int i = 0; i < kScenarioCount; ++i) {
    const auto s = static_cast<Scenario>(i);
    if (all || std::find(o.scenarios.begin(), o.scenarios.end(), scenario_name(s)) != o.scenarios.end()) out.push_back(s);
  }
  return out;
}

std::optional<std::string> combination_error(const Options& o) {
  if (!o.child.empty()) {
    if (o.child != scenario_name(Scenario::divergent_syncthreads) && o.child != scenario_name(Scenario::syncwarp_mask))
      return "--child " + o.child + ": only divergent-syncthreads and syncwarp-mask run as a child process";
    if (o.child_out.empty()) return "--child needs --child-out FILE";
    return std::nullopt;
  }
  const auto sel = selected_scenarios(o);
  if (o.model) {
    if (!simt::parse_regime(*o.model))
      return "--model " + *o.model + ": accepted lockstep (one program counter per warp, pre-Volta) or independent "
                                    "(Volta and newer)";
    if (o.backend_gpu_asked)
      return "--model " + *o.model + " chooses the warp scheduling of the reference model's trace, and --backend gpu "
                                    "asks for the GPU alone; use --backend model, or leave --backend at auto to see "
                                    "the GPU and the model side by side";
    if (!has(sel, Scenario::warp_spinlock))
      return "--model chooses the scheduling of warp-spinlock's trace; add --scenario warp-spinlock";
  }
  if (o.blocks && !has(sel, Scenario::grid_oversubscribed) && !has(sel, Scenario::producer_before_consumer))
    return "--blocks " + std::to_string(*o.blocks) +
           " sets the grid of grid-oversubscribed and producer-before-consumer; the other scenarios run their own "
           "one or two blocks. Add one of those two to --scenario";
  if (o.sanitize) {
    if (!has(sel, Scenario::divergent_syncthreads))
      return "--sanitize runs compute-sanitizer synccheck on the divergent-syncthreads child; add --scenario "
             "divergent-syncthreads";
    if (o.backend_model_asked)
      return "--sanitize runs compute-sanitizer on a GPU kernel, and --backend model runs none; drop --sanitize or "
             "use --backend gpu";
  }
  return std::nullopt;
}

report::Report run(const Options& o, const RunContext& ctx) {
  if (const auto e = combination_error(o)) throw UsageError(*e);
#if !CUDASYNC_HAVE_CUDA
  if (ctx.gpu) throw NoGpuError("this cudasync was built without CUDA");
#endif
  if (!o.child.empty()) return run_child(o, ctx);
  const bool gpu = ctx.gpu;
  const auto sel = selected_scenarios(o);
  [[maybe_unused]] const unsigned long long ns = deadline_ns(o);  // the GPU runs' deadline

  // The children start first and run while this process does the other scenarios.
  std::unique_ptr<ChildProcess> sync_child, warp_child;
  std::unique_ptr<SanitizerChild> san_child;
  std::string sync_error, warp_error, sanitizer_missing;
  if (gpu && has(sel, Scenario::divergent_syncthreads)) {
    sync_child = start_child(Scenario::divergent_syncthreads, o, ctx, sync_error);
    if (o.sanitize) {
      std::string looked;
      if (const auto tool = find_compute_sanitizer(looked)) {
        try {
          san_child = std::make_unique<SanitizerChild>(*tool, o.deadline_ms, ctx.device->index);
        } catch (const std::runtime_error& e) {
          sanitizer_missing = std::string(e.what());
        }
      } else {
        sanitizer_missing = looked;
      }
    }
  }
  if (gpu && has(sel, Scenario::syncwarp_mask)) warp_child = start_child(Scenario::syncwarp_mask, o, ctx, warp_error);

  report::Report r;
  r.technique = "deadlock-demo";
  r.title = "deadlock-demo: every classic GPU sync deadlock, run for real and safely, with who was stuck and why";
  Setup setup;
  setup.gpu = gpu;
  setup.device = device_text(ctx);
  setup.scenarios = sel;
  setup.deadline_ms = o.deadline_ms;
  setup.blocks = o.blocks;
  if (has(sel, Scenario::warp_spinlock)) setup.regimes = trace_regimes(o);
  r.sections.push_back(setup_section(setup));

  for (Scenario sc : sel) {
    switch (sc) {
      case Scenario::grid_oversubscribed: {
        GridPart p;
        size_grid(p, sc, o, ctx);
        p.model = grid_barrier_model(p.blocks, p.c);
#if CUDASYNC_HAVE_CUDA
        if (gpu) {
          p.broken = gpu_grid_barrier(p.blocks, ns);
          p.fix = gpu_grid_barrier(std::min(p.c.limit(), kMaxBlocks), ns);
          p.coop_supported = gpu_cooperative_launch(ctx.device->index);
          if (p.coop_supported) p.coop = gpu_grid_barrier_cooperative(p.blocks, ns);
          p.health = gpu_health();
        }
#endif
        r.sections.push_back(grid_section(p));
        break;
      }
      case Scenario::warp_spinlock: {
        WarpPart p;
        p.deadline_ms = o.deadline_ms;
        p.model = warp_model(trace_regimes(o));
#if CUDASYNC_HAVE_CUDA
        if (gpu) {
          p.lock = gpu_warp_spinlock(kSpinlockIters, ns);
          p.ring = gpu_lane_ring(ns);
          p.health = gpu_health();
        }
#endif
        r.sections.push_back(warp_section(p));
        break;
      }
      case Scenario::divergent_syncthreads: {
        BarrierPart p = barrier_part(false, o, gpu, sync_child, sync_error);
        p.sanitize = o.sanitize;
        p.sanitizer_missing = sanitizer_missing;
        if (san_child) p.sanitizer = san_child->finish();
        if (o.sanitize && !gpu && sanitizer_missing.empty())
          p.sanitizer_missing = "nowhere: --sanitize needs a GPU, and this run has none";
        r.sections.push_back(barrier_section(p));
        break;
      }
      case Scenario::lock_order: {
        LockOrderPart p;
        p.deadline_ms = o.deadline_ms;
        p.model = lock_order_model();
#if CUDASYNC_HAVE_CUDA
        if (gpu) {
          p.gpu = gpu_lock_order(ns, kLockOrderIters);
          p.health = gpu_health();
        }
#endif
        r.sections.push_back(lock_order_section(p));
        break;
      }
      case Scenario::producer_before_consumer: {
        ChainPart p;
        size_grid(p, sc, o, ctx);
        p.model = chain_model(p.blocks, p.c);
#if CUDASYNC_HAVE_CUDA
        if (gpu) {
          p.broken = gpu_chain(p.blocks, ns, false);
          p.fix = gpu_chain(p.blocks, ns, true);
          p.health = gpu_health();
        }
#endif
        r.sections.push_back(chain_section(p));
        break;
      }
      case Scenario::syncwarp_mask:
        r.sections.push_back(barrier_section(barrier_part(true, o, gpu, warp_child, warp_error)));
        break;
    }
  }
  return r;
}

cli::Runner attach(CLI::App& sub) {
  auto o = std::make_shared<Options>();
  std::vector<std::string> accepted = scenario_names();
  accepted.push_back("all");
  std::string names;
  for (const auto& n : scenario_names()) names += " " + n;
  sub.add_option("--scenario", o->scenarios, "Which scenarios, comma-separated, or all (the default):" + names)
      ->delimiter(',')
      ->check(CLI::IsMember(accepted));
  sub.add_option("--blocks", o->blocks,
                 "Blocks of grid-oversubscribed and producer-before-consumer (default: twice what fits on the GPU at "
                 "once): 1.." + std::to_string(kMaxBlocks))
      ->check(CLI::Range(1, kMaxBlocks));
  sub.add_option("--deadline-ms", o->deadline_ms,
                 "How long a waiting block or lane waits before it gives up, in ms (default " +
                     std::to_string(kDefaultDeadlineMs) + "): 1.." + std::to_string(kMaxDeadlineMs))
      ->check(CLI::Range(1, kMaxDeadlineMs));
  sub.add_option("--model", o->model,
                 "Warp scheduling of warp-spinlock's step-by-step trace: lockstep (pre-Volta, a SIMT stack) or "
                 "independent (Volta and newer); default both. Not with --backend gpu")
      ->check(CLI::IsMember({"lockstep", "independent"}));
  sub.add_flag("--sanitize", o->sanitize,
               "GPU only: also run the divergent-syncthreads child under compute-sanitizer --tool synccheck and show "
               "its report");
  sub.add_option("--child", o->child)->group("");      // hidden: a barrier scenario's child process
  sub.add_option("--child-out", o->child_out)->group("");
  sub.add_option("--child-grace-ms", o->child_grace_ms)->group("")->check(CLI::Range(1, 600000));
  CLI::App* parent = sub.get_parent();
  sub.callback([o, parent] {
    if (parent) {
      const CLI::Option* backend = parent->get_option_no_throw("--backend");
      if (backend && backend->count() > 0) {
        std::string v = backend->results().back();
        std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        o->backend_gpu_asked = v == "gpu";
        o->backend_model_asked = v == "model";
      }
    }
    if (const auto e = combination_error(*o)) throw CLI::ValidationError(*e);
  });
  return [o](const RunContext& ctx) { return run(*o, ctx); };
}

}  // namespace cudasync::deadlock_demo
