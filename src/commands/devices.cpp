#include "commands/devices.hpp"

#include "core/version.hpp"
#include "core/words/words.hpp"

namespace cudasync::commands {

namespace {

using I = std::int64_t;
using words::core;

report::Report run_devices(const RunContext& ctx) {
  using report::Format;
  const GpuProbe& p = ctx.gpus();
  report::Report r;
  r.command = "devices";
  r.title = core("devices.title");
  report::Section host("host", core("devices.host"));
  host.fact("cuda-built-in", core("devices.cuda-built-in"), core(kCudaBuiltIn ? "devices.yes" : "devices.model-only"));
  host.fact("driver-version", core("devices.driver-version"), version_string(p.driver_version), Format::plain,
            core("devices.driver-version-note"));
  host.fact("runtime-version", core("devices.runtime-version"), version_string(p.runtime_version), Format::plain,
            core("devices.linked-statically"));
  host.fact("visible-gpus", core("devices.visible-gpus"), static_cast<I>(p.devices.size()), Format::count,
            p.devices.empty() ? p.reason.in(words::language()) : "");
  host.fact("nccl-built-in", core("devices.nccl-built-in"),
            kNcclBuiltIn ? core("devices.yes-version", {{"version", kNcclVersion}}) : core("devices.no"), Format::plain,
            core(kNcclBuiltIn ? "devices.nccl-rows-run" : "devices.nccl-rows-waived"));
  r.sections.push_back(std::move(host));
  for (const auto& d : p.devices) {
    report::Section s("gpu-" + std::to_string(d.index), "GPU " + std::to_string(d.index) + ": " + d.name);
    s.fact("compute-capability", core("devices.compute-capability"), d.cc_string());
    s.fact("sms", core("devices.sms"), static_cast<I>(d.sm_count));
    s.fact("warp-size", core("devices.warp-size"), static_cast<I>(d.warp_size));
    s.fact("max-threads-per-block", core("devices.max-threads-per-block"), static_cast<I>(d.max_threads_per_block));
    s.fact("max-threads-per-sm", core("devices.max-threads-per-sm"), static_cast<I>(d.max_threads_per_sm));
    s.fact("max-blocks-per-sm", core("devices.max-blocks-per-sm"), static_cast<I>(d.max_blocks_per_sm), Format::plain,
           core("devices.max-blocks-per-sm-note"));
    s.fact("max-resident-threads", core("devices.max-resident-threads"),
           static_cast<I>(d.max_threads_per_sm) * d.sm_count, Format::count, core("devices.max-resident-threads-note"));
    s.fact("shared-memory-per-sm", core("devices.shared-memory-per-sm"), static_cast<I>(d.shared_mem_per_sm), Format::bytes);
    s.fact("registers-per-sm", core("devices.registers-per-sm"), static_cast<I>(d.regs_per_sm), Format::count);
    s.fact("l2-bytes", core("devices.l2"), static_cast<I>(d.l2_bytes), Format::bytes);
    s.fact("sm-clock-khz", core("devices.sm-clock"), static_cast<I>(d.clock_khz), Format::count,
           core(d.clock_khz ? "devices.clock-as-reported" : "devices.clock-not-reported"));
    s.fact("cooperative-launch", core("devices.cooperative-launch"), d.cooperative_launch, Format::plain,
           core("devices.cooperative-launch-note"));
    r.sections.push_back(std::move(s));
  }
  return r;
}

}  // namespace

cli::Runner attach_devices(CLI::App&) { return run_devices; }

}  // namespace cudasync::commands
