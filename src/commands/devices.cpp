#include "commands/devices.hpp"

#include "core/version.hpp"

namespace cudasync::commands {

namespace {

using I = std::int64_t;

report::Report run_devices(const RunContext& ctx) {
  using report::Format;
  const GpuProbe& p = ctx.gpus();
  report::Report r;
  r.command = "devices";
  r.title = "cudasync: GPUs visible to this process";
  report::Section host("host", "CUDA on this machine");
  host.fact("cuda-built-in", "CUDA built in", std::string(kCudaBuiltIn ? "yes" : "no (model-only binary)"));
  host.fact("driver-version", "driver version", version_string(p.driver_version), Format::plain,
            "the CUDA version the driver supports");
  host.fact("runtime-version", "runtime version", version_string(p.runtime_version), Format::plain, "linked statically");
  host.fact("visible-gpus", "visible GPUs", static_cast<I>(p.devices.size()), Format::count,
            p.devices.empty() ? p.reason : "");
  host.fact("nccl-built-in", "NCCL built in",
            std::string(kNcclBuiltIn ? std::string("yes, ") + kNcclVersion : std::string("no")), Format::plain,
            kNcclBuiltIn ? "multi-gpu's NCCL rows can run (with two GPUs)" : "multi-gpu waives its NCCL rows");
  r.sections.push_back(std::move(host));
  for (const auto& d : p.devices) {
    report::Section s("gpu-" + std::to_string(d.index), "GPU " + std::to_string(d.index) + ": " + d.name);
    s.fact("compute-capability", "compute capability", d.cc_string());
    s.fact("sms", "SMs", static_cast<I>(d.sm_count));
    s.fact("warp-size", "warp size", static_cast<I>(d.warp_size));
    s.fact("max-threads-per-block", "max threads per block", static_cast<I>(d.max_threads_per_block));
    s.fact("max-threads-per-sm", "max threads per SM", static_cast<I>(d.max_threads_per_sm));
    s.fact("max-blocks-per-sm", "max resident blocks per SM", static_cast<I>(d.max_blocks_per_sm), Format::plain,
           "hardware limit; the occupancy API gives a kernel's own");
    s.fact("max-resident-threads", "max resident threads on the GPU",
           static_cast<I>(d.max_threads_per_sm) * d.sm_count, Format::count, "SMs x threads per SM");
    s.fact("shared-memory-per-sm", "shared memory per SM", static_cast<I>(d.shared_mem_per_sm), Format::bytes);
    s.fact("registers-per-sm", "registers per SM", static_cast<I>(d.regs_per_sm), Format::count);
    s.fact("l2-bytes", "L2 cache", static_cast<I>(d.l2_bytes), Format::bytes);
    s.fact("sm-clock-khz", "SM clock (kHz)", static_cast<I>(d.clock_khz), Format::count,
           d.clock_khz ? "as the runtime reports it" : "not reported");
    s.fact("cooperative-launch", "cooperative launch", d.cooperative_launch, Format::plain, "grid.sync() needs it");
    r.sections.push_back(std::move(s));
  }
  return r;
}

}  // namespace

cli::Runner attach_devices(CLI::App&) { return run_devices; }

}  // namespace cudasync::commands
