// threadfence: options, validation, and the run that asks the GPU (when there is one) and the
// reference model the same questions. Sections are built in threadfence_sections.cpp.
#include <algorithm>
#include <memory>

#include "core/errors.hpp"
#include "core/kernel_listing.hpp"
#include "techniques/threadfence/threadfence_lesson.hpp"
#include "techniques/threadfence/threadfence_model.hpp"
#include "techniques/threadfence/threadfence_sections.hpp"
#if CUDASYNC_HAVE_CUDA
#include "techniques/threadfence/threadfence_gpu.hpp"
#endif

namespace cudasync::threadfence {

namespace {

constexpr unsigned long long kWaitBudgetNs = 20000000ull;      // 20 ms: every wait of a litmus instance
constexpr unsigned long long kPlainWaitBudgetNs = 1000000ull;  // 1 ms: the wait on a plain load
const std::vector<std::string> kAccessNames = {"plain", "volatile"};
const std::vector<std::string> kPlacementNames = {"different-blocks", "same-block"};

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::string list_text(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

bool litmus_option_given(const Options& o) {
  return !o.tests.empty() || !o.fence.empty() || o.access || o.placement;
}

std::vector<Test> tests_of(const Options& o) {
  std::vector<Test> t;
  if (o.tests.empty()) return {Test::mp, Test::sb, Test::lb, Test::corr};
  for (const auto& name : o.tests)
    if (const auto x = parse_test(name); x && std::find(t.begin(), t.end(), *x) == t.end()) t.push_back(*x);
  return t;
}

// The fence pairs the litmus part runs for `test`: the given one, else the matrix (each fence on
// both sides; mp also __threadfence() on one side only). A single name for corr is the reader's
// fence; its writer takes none, or rel-acq.
std::vector<std::pair<Fence, Fence>> fences_for(const Options& o, Test test) {
  std::vector<std::pair<Fence, Fence>> out;
  const auto one = [&](Fence f) {
    if (test == Test::corr && f != Fence::rel_acq) return std::pair<Fence, Fence>{Fence::none, f};
    return std::pair<Fence, Fence>{f, f};
  };
  if (o.fence.empty()) {
    for (int f = 0; f < kFences; ++f) out.push_back(one(static_cast<Fence>(f)));
    // mp also with one fence on one side only: each half of the pair alone.
    if (test == Test::mp) {
      out.push_back({Fence::device, Fence::none});
      out.push_back({Fence::none, Fence::device});
    }
  } else if (o.fence.size() == 1) {
    out.push_back(one(*parse_fence(o.fence[0])));
  } else {
    out.push_back({*parse_fence(o.fence[0]), *parse_fence(o.fence[1])});
  }
  return out;
}

std::string device_text(const RunContext& ctx) {
  if (!ctx.device) return "";
  const DeviceInfo& d = *ctx.device;
  return "GPU " + std::to_string(d.index) + ", " + d.name + ", " + std::to_string(d.sm_count) + " SMs, cc " + d.cc_string();
}

void run_rows(std::vector<LitmusRow>& rows, const RunContext& ctx) {
#if CUDASYNC_HAVE_CUDA
  if (ctx.gpu)
    for (auto& r : rows) r.gpu = gpu_litmus(r.spec, r.iterations, r.budget_ns);
#else
  (void)rows;
  (void)ctx;
#endif
}

}  // namespace

std::vector<std::string> resolved_parts(const Options& o) {
  std::vector<std::string> parts;
  if (!o.parts.empty()) {
    for (const auto& p : kParts)  // report order, no repeats
      if (has(o.parts, p) || (p == "ptx" && o.show_ptx)) parts.push_back(p);
    return parts;
  }
  if (o.show_ptx) return {"ptx"};
  if (litmus_option_given(o)) return {"litmus"};
  for (const auto& p : kParts)
    if (p != "ptx") parts.push_back(p);
  return parts;
}

std::optional<std::string> iterations_error(const std::string& text) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (...) {
    used = 0;
  }
  if (used == 0 || used != text.size()) return "'" + text + "' is not a whole number of instances; give 1.." + std::to_string(kMaxIterations);
  if (v < 1 || v > kMaxIterations)
    return text + " instances: give 1.." + std::to_string(kMaxIterations) +
           " per litmus row (each row runs at least this many, in whole rounds)";
  return std::nullopt;
}

std::optional<std::string> combination_error(const Options& o) {
  const auto parts = resolved_parts(o);
  if (!o.parts.empty() && litmus_option_given(o) && !has(parts, "litmus"))
    return "--test, --fence, --access and --placement choose the rows of the litmus part, which this --part leaves "
           "out; add litmus to --part";
  if (o.iterations && !has(parts, "litmus") && !has(parts, "scope") && !has(parts, "volatile"))
    return "--iterations sets the instances of the litmus, scope and volatile rows, and none of them is in --part " +
           list_text(parts);
  if (o.fence.size() > 2)
    return "--fence " + list_text(o.fence) + ": give one fence for both sides or two (side 0,side 1), e.g. --fence device,none";
  if (o.fence.size() == 2) {
    const auto f0 = parse_fence(o.fence[0]);
    const bool writer_fence = f0 && (*f0 == Fence::block || *f0 == Fence::device || *f0 == Fence::system);
    if (writer_fence && (o.tests.empty() || has(o.tests, "corr")))
      return "--fence " + o.fence[0] + "," + o.fence[1] + " with corr" +
             std::string(o.tests.empty() ? " (every test runs without --test)" : "") +
             ": side 0 of corr is a single store, and a fence before it has nothing to order. Give corr's reader "
             "its fence alone (--test corr --fence " + o.fence[1] + ", or none," + o.fence[1] +
             "), or leave corr out with --test";
  }
  return std::nullopt;
}

report::Report run(const Options& o, const RunContext& ctx) {
  if (const auto e = combination_error(o)) throw UsageError(*e);
#if !CUDASYNC_HAVE_CUDA
  if (ctx.gpu) throw NoGpuError("this cudasync was built without CUDA");
#endif
  const bool gpu = ctx.gpu;
  const auto parts = resolved_parts(o);
  const long long iterations = o.iterations.value_or(ctx.bench ? kBenchIterations : kDefaultIterations);
  report::Report r;
  r.technique = "threadfence";
  r.title = "threadfence: what a fence orders, in litmus tests on the GPU, down to PTX, and the patterns that need it";

  SetupInfo setup;
  setup.gpu = gpu;
  setup.device = device_text(ctx);
  setup.seed = ctx.seed;
  setup.iterations = iterations;
  setup.parts = parts;
  r.sections.push_back(setup_section(setup));

  if (has(parts, "litmus")) {
    LitmusSpec base;
    base.access = o.access && *o.access == "volatile" ? Access::vol : Access::plain;
    base.placement = o.placement && *o.placement == "same-block" ? Placement::same_block : Placement::different_blocks;
    std::vector<LitmusRow> rows;
    for (Test t : tests_of(o))
      for (const auto& [f0, f1] : fences_for(o, t)) {
        LitmusSpec s = base;
        s.test = t;
        s.fence[0] = f0;
        s.fence[1] = f1;
        rows.push_back(make_row(s, iterations, kWaitBudgetNs));
      }
    run_rows(rows, ctx);
    r.sections.push_back(litmus_section(rows, gpu));
  }
  if (has(parts, "scope")) {
    std::vector<LitmusRow> rows;
    for (Placement p : {Placement::same_block, Placement::different_blocks})
      for (Fence f : {Fence::none, Fence::block, Fence::device}) {
        LitmusSpec s;
        s.test = Test::mp;
        s.fence[0] = s.fence[1] = f;
        s.placement = p;
        rows.push_back(make_row(s, iterations, kWaitBudgetNs));
      }
    run_rows(rows, ctx);
    r.sections.push_back(scope_section(rows, gpu));
  }
  if (has(parts, "volatile")) {
    struct Case {
      const char* label;
      Test test;
      Fence fence;
      Access access;
      bool weak_wait;
    };
    const Case cases[] = {
        {"wait with a plain load", Test::mp, Fence::none, Access::plain, true},
        {"wait with a volatile load", Test::mp, Fence::none, Access::plain, false},
        {"mp, all volatile", Test::mp, Fence::none, Access::vol, false},
        {"sb, all volatile", Test::sb, Fence::none, Access::vol, false},
        {"lb, all volatile", Test::lb, Fence::none, Access::vol, false},
        {"sb, volatile + __threadfence()", Test::sb, Fence::device, Access::vol, false},
        {"sb, release/acquire", Test::sb, Fence::rel_acq, Access::vol, false},
    };
    std::vector<LitmusRow> rows;
    for (const auto& c : cases) {
      LitmusSpec s;
      s.test = c.test;
      s.fence[0] = s.fence[1] = c.fence;
      s.access = c.access;
      s.weak_wait = c.weak_wait;
      // The wait on a plain load runs one round: a wait that gives up stops its thread.
      LitmusRow row = make_row(s, c.weak_wait ? 1 : iterations, c.weak_wait ? kPlainWaitBudgetNs : kWaitBudgetNs);
      row.label = c.label;
      row.timeouts_expected = c.weak_wait;
      rows.push_back(std::move(row));
    }
    run_rows(rows, ctx);
    r.sections.push_back(volatile_section(rows, gpu));
  }
  if (has(parts, "ptx")) {
    const KernelListing& listing = kernel_listing();
    r.sections.push_back(ptx_section(listing, listing_sass_arch(listing, gpu ? ctx.device->compute_capability() : 0)));
  }
  if (has(parts, "cost")) {
    const int cost_iterations = ctx.bench ? 20000 : 2000;
    const int reps = ctx.bench ? 31 : 5;
    std::vector<CostRow> rows;
    for (CostShape shape : {CostShape::one_thread, CostShape::warp_per_sm})
      for (int v = 0; v < kCostVariants; ++v) {
        CostRow row;
        row.variant = static_cast<CostVariant>(v);
        row.shape = shape;
#if CUDASYNC_HAVE_CUDA
        if (gpu) row.ns = gpu_cost_ns(row.variant, shape, cost_iterations, reps);
#else
        (void)reps;
#endif
        rows.push_back(std::move(row));
      }
    r.sections.push_back(cost_section(rows, gpu, cost_iterations, ctx.bench));
  }
  if (has(parts, "last-block")) {
    LastBlockSpec spec;
    if (gpu) spec.blocks = 2 * ctx.device->sm_count;
    spec.runs = ctx.bench ? 1000 : 200;
    spec.input = make_last_block_input(spec.elements(), ctx.seed);
    const std::uint64_t sum = exact_sum(spec.input);
    std::vector<LastBlockOutcome> outcomes;
    for (int v = 0; v < kLastBlockVariants; ++v) {
      LastBlockOutcome out;
      out.variant = static_cast<LastBlockVariant>(v);
#if CUDASYNC_HAVE_CUDA
      if (gpu) out.gpu = gpu_last_block(spec, out.variant);
#endif
      outcomes.push_back(std::move(out));
    }
    r.sections.push_back(last_block_section(spec, sum, outcomes, gpu));
  }
  if (has(parts, "work-queue")) {
    QueueSpec spec;
    spec.cost_units = make_costs(128, ctx.seed);
    QueueOutcome got;
#if CUDASYNC_HAVE_CUDA
    if (gpu) {
      got.a_priori = gpu_queue(spec, false);
      got.queue = gpu_queue(spec, true);
    }
#endif
    r.sections.push_back(queue_section(spec, got, gpu));
  }
  return r;
}

cli::Runner attach(CLI::App& sub) {
  auto o = std::make_shared<Options>();
  const auto member = [](const std::string& what, const std::vector<std::string>& names) {
    return [what, names](const std::string& s) {
      return has(names, s) ? std::string() : "unknown " + what + " '" + s + "'; accepted: " + list_text(names);
    };
  };
  sub.add_option("--part", o->parts, "Which parts, comma-separated (default: all but ptx): " + list_text(kParts))
      ->delimiter(',')
      ->check(member("part", kParts));
  sub.add_flag("--show-ptx", o->show_ptx,
               "The PTX and SASS each fence and atomic compiles to in this build, beside seed 004's membar table "
               "(the ptx part)");
  sub.add_option("--test", o->tests, "litmus: tests, comma-separated (default all): " + list_text(kTestNames))
      ->delimiter(',')
      ->check(member("test", kTestNames));
  sub.add_option("--fence", o->fence,
                 "litmus: one fence for both sides, or two (side 0,side 1); default: each on both sides. none, block "
                 "(__threadfence_block), device (__threadfence), system (__threadfence_system), rel-acq "
                 "(cuda::atomic_ref release/acquire). For corr one name is the reader's fence; its writer takes none "
                 "or rel-acq")
      ->delimiter(',')
      ->expected(1, 2)
      ->check(member("fence", kFenceNames));
  sub.add_option("--access", o->access,
                 "litmus: plain (ld.global/st.global, default) or volatile (ld.volatile/st.volatile)")
      ->check(member("access", kAccessNames));
  sub.add_option("--placement", o->placement,
                 "litmus: the two sides in different-blocks (default) or in the two halves of one block (same-block)")
      ->check(member("placement", kPlacementNames));
  sub.add_option("--iterations", o->iterations,
                 "Instances per litmus row (litmus, scope, volatile), 1.." + std::to_string(kMaxIterations) +
                     " (default " + std::to_string(kDefaultIterations) + ", --bench " + std::to_string(kBenchIterations) +
                     "); rounded up to whole rounds of the GPU")
      ->check([](const std::string& s) { return iterations_error(s).value_or(""); });
  sub.callback([o] {
    if (const auto e = combination_error(*o)) throw CLI::ValidationError(*e);
  });
  return [o](const RunContext& ctx) { return run(*o, ctx); };
}

}  // namespace cudasync::threadfence
