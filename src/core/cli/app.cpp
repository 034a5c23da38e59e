#include "core/cli/app.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "core/backend.hpp"
#include "core/cli/cli_spec.hpp"
#include "core/cli/deliver.hpp"
#include "core/cli/global_options.hpp"
#include "core/cli/help_format.hpp"
#include "core/cli/terminal.hpp"
#include "core/errors.hpp"
#include "core/report/json_renderer.hpp"
#include "core/version.hpp"
#if CUDASYNC_HAVE_CUDA
#include "core/cuda/device.hpp"
#endif

namespace cudasync::cli {

namespace {

const char* kExitCodes =
    "Exit codes:\n"
    "  0   ok\n"
    "  1   a check failed (the GPU disagrees with the reference model, or a result is wrong),\n"
    "      or an internal error\n"
    "  2   usage error (a bad option value or combination, an unwritable --json path)\n"
    "  3   no usable GPU when one was required (--backend gpu), or a CUDA driver error\n"
    "  77  the lesson or part is not supported on this GPU (waived, with the reason)";

// spdlog's default logger writes to stdout, where tables and JSON go; replace it with stderr.
void setup_logging() {
  auto logger = std::make_shared<spdlog::logger>("cudasync", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_pattern("cudasync: %v");
  spdlog::set_default_logger(logger);
}

// A parse error happens before CLI11 has filled the options, so the --json wish is read from
// argv directly: even a bad command line gets its one JSON document.
std::string json_target_from_argv(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") return "-";
    if (a.rfind("--json=", 0) == 0) return a.substr(7);
  }
  return "";
}

std::string version_text() {
  std::string s = std::string("cudasync ") + kToolVersion + " (git " + kGitSha + ")\n";
  if (kCudaBuiltIn) s += std::string("CUDA: built in (toolkit ") + kCudaToolkitVersion + "), GPU and reference-model backends";
  else s += "CUDA: not built in: model-only binary (the reference model runs every lesson; timings need a GPU build)";
  return s;
}

class Output {
 public:
  Output(const GlobalOptions& o, report::RunMeta& meta, const OutputOptions& out = {})
      : opts_(o), meta_(meta), out_opts_(out), exports_(out) {
    if (!o.json_target.empty() && o.json_target != "-") {
      file_ = std::make_unique<std::ofstream>(o.json_target);
      if (!*file_) {
        const std::string target = o.json_target;
        file_.reset();
        throw UsageError("--json=" + target + ": cannot open the file for writing (" + std::strerror(errno) +
                         "); give a writable path, or --json alone for stdout");
      }
    }
  }
  bool json_on_stdout() const { return opts_.json_target == "-"; }

  void report(const report::Report& r) {
    if (!json_on_stdout() && !exports_.on_stdout())
      print_text(r, use_color(opts_.color, isatty(STDOUT_FILENO) != 0, std::getenv("NO_COLOR"), std::getenv("TERM")),
                 out_opts_);
    exports_.write(r, meta_);
    if (!opts_.json_target.empty()) write_json(report::document_json(r, meta_).dump(2));
  }
  void error(const Error& e) { error(e.kind, e.what(), static_cast<int>(e.code)); }
  void error(const std::string& kind, const std::string& message, int code) {
    std::cerr << "cudasync: error: " << message << "\n";
    if (!opts_.json_target.empty()) write_json(report::error_document_json(kind, message, code, meta_).dump(2));
  }

 private:
  void write_json(const std::string& doc) {
    if (file_) *file_ << doc << '\n';
    else std::cout << doc << '\n';
  }
  const GlobalOptions& opts_;
  report::RunMeta& meta_;
  OutputOptions out_opts_;
  Exports exports_;
  std::unique_ptr<std::ofstream> file_;
};

int exit_code_of(const report::Report& r) {
  if (r.checks_failed() > 0) return static_cast<int>(ExitCode::check_failed);
  if (r.fully_waived()) return static_cast<int>(ExitCode::waived);
  return static_cast<int>(ExitCode::ok);
}

}  // namespace

int run_app(int argc, char** argv, const std::vector<Command>& commands) {
  setup_logging();
  CLI::App app{"cudasync: GPU synchronization techniques, run on the GPU, checked against a CPU "
               "reference model, measured and explained.",
               "cudasync"};
  use_help_formatter(app, static_cast<std::size_t>(terminal_width()));  // before the subcommands: they inherit it
  app.footer(kExitCodes);
  app.set_version_flag("--version", version_text());
  app.require_subcommand(0, 1);
  app.fallthrough();  // global options are accepted after the subcommand name too
  GlobalOptions opts;
  add_global_options(app, opts);
  OutputOptions out_opts;
  add_output_options(app, out_opts);

  struct Wired {
    const Command* command;
    CLI::App* sub;
    cli::Attached attached;
  };
  std::vector<Wired> attached;
  std::vector<CommandSummary> summaries;
  for (const auto& c : commands) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    attached.push_back({&c, sub, c.attach(*sub)});
    const std::string footer = sub->get_footer();
    sub->footer(footer + (footer.empty() ? "" : "\n") + kExitCodes);
    summaries.push_back({c.name, c.summary, c.kind == CommandKind::lesson, c.parts});
  }
  add_cli_spec_flag(app, summaries);  // hidden: the man page and completions are generated from it

  report::RunMeta meta;
  for (int i = 0; i < argc; ++i) meta.argv.emplace_back(argv[i]);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::Success& e) {  // --cli-spec printed the definition
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    GlobalOptions fallback;
    fallback.json_target = json_target_from_argv(argc, argv);
    std::string message = e.what();
    const bool in_subcommand = std::any_of(attached.begin(), attached.end(), [](const Wired& a) { return a.sub->parsed(); });
    if (dynamic_cast<const CLI::ExtrasError*>(&e) && !in_subcommand) {
      message += "; the commands are:";
      for (const auto& c : commands) message += std::string(" ") + c.name;
    }
    try {
      Output out(fallback, meta);
      out.error("usage", message + " (see cudasync --help)", static_cast<int>(ExitCode::usage));
    } catch (const Error& inner) {
      std::cerr << "cudasync: error: " << e.what() << "\ncudasync: error: " << inner.what() << "\n";
    }
    return static_cast<int>(ExitCode::usage);
  }

  if (opts.quiet) spdlog::set_level(spdlog::level::err);
  else if (opts.verbose > 0) spdlog::set_level(spdlog::level::debug);

  meta.backend_requested = to_string(opts.backend);
  std::unique_ptr<Output> out;
  try {
    if (const auto conflict = stdout_conflict(out_opts, opts.json_target)) throw UsageError(*conflict);
    out = std::make_unique<Output>(opts, meta, out_opts);
    const Wired* chosen = nullptr;
    for (const auto& a : attached)
      if (a.sub->parsed()) chosen = &a;
    if (!chosen) {  // `cudasync` alone: what is here
      for (const auto& a : attached)
        if (std::string(a.command->name) == "list") chosen = &a;
    }

    RunContext ctx;
    ctx.backend_request = opts.backend;
    ctx.device_request = opts.device;
    ctx.seed = opts.seed;
    ctx.bench = opts.bench;
    ctx.color = use_color(opts.color, isatty(STDOUT_FILENO) != 0, std::getenv("NO_COLOR"), std::getenv("TERM"));
    ctx.commands = summaries;
    // Combinations are judged before a backend is chosen: a usage error never touches a GPU.
    if (chosen->attached.validate) chosen->attached.validate(ctx);
    const GpuProbe probe = probe_gpus();
    ctx.probe = &probe;
    meta.driver_version = probe.driver_version;
    meta.runtime_version = probe.runtime_version;
    if (chosen->command->kind == CommandKind::lesson) {
      const BackendChoice choice = choose_backend(opts.backend, opts.device, probe);
      spdlog::info("{}", choice.reason);
      ctx.gpu = choice.gpu;
      ctx.device = choice.device;
      meta.device = choice.device;
      meta.backend_used = choice.gpu ? "gpu" : "model";
      meta.backend_reason = choice.reason;
#if CUDASYNC_HAVE_CUDA
      if (ctx.gpu) cuda::select_device(ctx.device->index);
#endif
    }
    const report::Report r = chosen->attached.run(ctx);
    out->report(r);
    return exit_code_of(r);
  } catch (const Error& e) {
    if (out) out->error(e);
    else std::cerr << "cudasync: error: " << e.what() << "\n";
    return static_cast<int>(e.code);
  } catch (const std::exception& e) {
    const std::string msg = std::string("internal error: ") + e.what();
    if (out) out->error("internal", msg, static_cast<int>(ExitCode::check_failed));
    else std::cerr << "cudasync: error: " << msg << "\n";
    return static_cast<int>(ExitCode::check_failed);
  }
}

}  // namespace cudasync::cli
