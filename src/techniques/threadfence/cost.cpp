// threadfence's cost and ptx parts. cost: ns per fence after a store, beside the store alone and the
// two peers every lesson prints (a dependent L2 load, a dependent atomicAdd), in one thread and in
// one warp per SM. ptx: what each fence and atomic compiled to in this build (one-fence probe
// kernels, read back at build time with cuobjdump), beside the PTX ISA's membar levels.
#include <algorithm>

#include "core/report/text_format.hpp"
#include "core/sweep/sweep.hpp"
#include "techniques/threadfence/lesson.hpp"

namespace cudasync::threadfence {

namespace {

struct VariantRow {
  CostVariant variant;
  const char* id;
  const char* title;  // a key of the lesson's catalog
};

const VariantRow kVariants[] = {
    {CostVariant::none, "store", "cost.row-store"},
    {CostVariant::block, "block", "cost.row-block"},
    {CostVariant::device, "device", "cost.row-device"},
    {CostVariant::system, "system", "cost.row-system"},
    {CostVariant::acq_rel, "acq-rel", "cost.row-acq-rel"},
    {CostVariant::release_store, "release-store", "cost.row-release-store"},
    {CostVariant::device_alone, "device-alone", "cost.row-device-alone"},
    {CostVariant::l2_load_chain, "l2-load", "cost.row-l2-load"},
    {CostVariant::atomic_chain, "atomic-add", "cost.row-atomic-add"},
};
const CostShape kShapes[] = {CostShape::one_thread, CostShape::warp_per_sm};

struct Probe {
  const char* id;                     // kebab-case: the check ptx-<id>, the kernel probe_<id, with _>
  const char* cuda;                   // the CUDA C++ (in words: a key of the lesson's catalog)
  const char* maps_to;                // what the PTX ISA / the atomics ABI maps it to
  std::vector<std::string> ptx_must;  // opcodes the PTX must contain (prefixes)
  bool in_words = false;              // cuda is a key: words, not code
};

const std::vector<Probe>& probes() {
  static const std::vector<Probe> p = {
      {"threadfence-block", "__threadfence_block()", "membar.cta = fence.sc.cta", {"membar.cta"}},
      {"threadfence", "__threadfence()", "membar.gl = fence.sc.gpu", {"membar.gl"}},
      {"threadfence-system", "__threadfence_system()", "membar.sys = fence.sc.sys", {"membar.sys"}},
      {"fence-sc-gpu", "asm(\"fence.sc.gpu;\")", "fence.sc.gpu", {"fence.sc.gpu"}},
      {"fence-acq-rel-gpu", "atomic_thread_fence(acq_rel)", "fence.acq_rel.gpu", {"fence.acq_rel.gpu"}},
      {"store-release", "ref.store(1, release)", "st.release.gpu", {"st.release.gpu"}},
      {"load-acquire", "ref.load(acquire)", "ld.acquire.gpu", {"ld.acquire.gpu"}},
      {"store-seq-cst", "ref.store(1, seq_cst)", "fence.sc.gpu; st.relaxed.gpu", {"fence.sc.gpu", "st.relaxed.gpu"}},
      {"volatile", "ptx.cuda-volatile", "st.volatile; ld.volatile", {"st.volatile", "ld.volatile"}, true},
      {"atomic-add", "v = atomicAdd(p, 1)", "atom.add (relaxed, gpu)", {"atom."}},
      {"atomic-add-unused", "ptx.cuda-atomic-add-unused", "atom.add (relaxed, gpu)", {"atom."}, true},
      {"fetch-add-acq-rel", "ref.fetch_add(1, acq_rel)", "atom.acq_rel.gpu.add", {"atom."}},
  };
  return p;
}

// A probe's CUDA C++ as the tables show it: the code, or its words in the run's language.
std::string cuda_text(const Probe& p) { return p.in_words ? say(p.cuda) : std::string(p.cuda); }

// The instructions of a probe's kernel (probe_<id, with _>) among `codes` (listing.sass or
// listing.ptx) for `arch`; `with_memory`: with the memory accesses among the fences.
std::vector<std::string> code_of(const std::vector<KernelCode>& codes, const std::string& arch,
                                 const std::string& probe_id, bool with_memory) {
  std::string kernel = "probe_" + probe_id;
  std::replace(kernel.begin(), kernel.end(), '-', '_');
  const KernelCode* k = find_kernel(codes, arch, "threadfence", kernel);
  if (!k) return {};
  return with_memory ? k->ordering : k->instructions;
}

// The facts, tables and checks of the probes, from a listing this build has.
void add_probes(report::Section& s, const KernelListing& listing, const std::string& arch) {
  const std::vector<std::string> targets = listing.ptx_archs();  // the last one is shown
  const std::string ptx_arch = targets.empty() ? "" : targets.back();
  s.fact("sass-arch", say("ptx.sass-shown"), arch.empty() ? say("ptx.none-in-build") : arch);
  s.fact("ptx-arch", say("ptx.ptx-shown"), ptx_arch.empty() ? say("ptx.none-in-build") : "compute_" + ptx_arch.substr(3));
  report::Table ptx("ptx", say("ptx.ptx-table"));
  ptx.column("cuda", "CUDA C++").column("maps-to", say("ptx.maps-to")).column("ptx", say("ptx.ptx-in-build"));
  report::Table sass("sass", say("ptx.sass-table", {{"arch", arch.empty() ? say("ptx.none-in-build") : arch}}));
  sass.column("cuda", "CUDA C++").column("sass", "SASS");
  for (const auto& p : probes()) {
    ptx.row({{"cuda", cuda_text(p)},
             {"maps-to", p.maps_to},
             {"ptx", distinct_instructions(code_of(listing.ptx, ptx_arch, p.id, true))}});
    if (!arch.empty())
      sass.row({{"cuda", cuda_text(p)}, {"sass", distinct_instructions(code_of(listing.sass, arch, p.id, true))}});
  }
  for (const char* line : {"ptx.legend-1", "ptx.legend-2", "ptx.legend-3"}) ptx.legend.push_back(say(line));
  for (const char* line :
       {"ptx.sass-legend-1", "ptx.sass-legend-2", "ptx.sass-legend-3", "ptx.sass-legend-4", "ptx.sass-legend-5"})
    sass.legend.push_back(say(line));
  s.add(std::move(ptx));
  if (!arch.empty()) {
    s.add(std::move(sass));
    // Which fences send the plain loads after them past the L1: what the litmus parts show.
    std::string l1;
    for (const auto& p : probes())
      if (has_opcode(code_of(listing.sass, arch, p.id, true), "CCTL.IVALL")) l1 += (l1.empty() ? "" : ", ") + cuda_text(p);
    s.fact("l1-invalidated-by", say("ptx.l1-invalidated-by"), l1.empty() ? say("ptx.l1-none") : l1, report::Format::plain,
           say("ptx.l1-note", {{"arch", arch}}));
  }
  for (const auto& p : probes()) {
    const auto code = code_of(listing.ptx, ptx_arch, p.id, true);
    const auto missing = missing_opcodes(code, p.ptx_must);
    const std::string listed = distinct_instructions(code);
    s.check(std::string("ptx-") + p.id,
            say("ptx.compiles-to", {{"cuda", cuda_text(p)}, {"ptx", report::join(p.ptx_must, ", ")}}), missing.empty(),
            missing.empty() ? listed : say("ptx.missing", {{"missing", report::join(missing, ", ")}, {"ptx", listed}}));
  }
  if (!arch.empty()) {
    const auto a = code_of(listing.sass, arch, "threadfence", false);
    const auto b = code_of(listing.sass, arch, "fence-sc-gpu", false);
    s.check("membar-gl-is-fence-sc-gpu", say("ptx.same-instruction", {{"arch", arch}}),
            !a.empty() && a == b,
            "__threadfence(): " + distinct_instructions(a) + "; fence.sc.gpu: " + distinct_instructions(b));
  }
}

}  // namespace

report::Section cost_section(const CostMeasure& measure, bool gpu_run, int iterations, bool bench) {
  report::Section s("cost", say("cost.title"));
  s.paragraph(say("cost.about", {{"iterations", iterations}}));
  if (bench) s.paragraph(say("cost.bench"));
  std::vector<sweep::Point> rows;
  for (const auto& v : kVariants) rows.push_back({v.id, say(v.title)});
  sweep::Sweep sw("cost", say("cost.unit"), report::Format::ns, sweep::Better::lower);
  // The peers are for reference: a fence is compared with them, and never one of them the best.
  sw.rows(say("cost.variant"), rows).baseline("store").versus("l2-load").reference("l2-load").reference("atomic-add");
  sw.columns(say("cost.shape"), {{"one-thread", say("cost.one-thread")}, {"warp-per-sm", say("cost.warp-per-sm")}});
  sw.run(gpu_run, [&](std::size_t row, std::size_t column) { return measure(kVariants[row].variant, kShapes[column]); });
  sw.add_to(s, gpu_run);
  return s;
}

report::Section cost_part(Run& run) {
  const bool bench = run.ctx.bench;
  const int iterations = bench ? 20000 : 2000;
  const int reps = bench ? 31 : 5;
  return cost_section(
      [&](CostVariant v, CostShape shape) { return gpu_cost_ns(v, shape, iterations, reps); }, run.ctx.gpu,
      iterations, bench);
}

report::Section ptx_section(const KernelListing& listing, const std::string& arch) {
  report::Section s("ptx", say("ptx.title"));
  s.paragraph(say("ptx.about"));
  if (listing.available) add_probes(s, listing, arch);
  else s.note(listing.reason());
  return s;
}

report::Section ptx_part(Run& run) {
  const KernelListing& listing = kernel_listing();
  return ptx_section(listing, listing_sass_arch(listing, run.ctx.compute_capability()));
}

}  // namespace cudasync::threadfence
