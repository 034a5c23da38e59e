#include "core/cli/app.hpp"

#include "core/cli/did_you_mean.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <iostream>
#include <memory>

#include <spdlog/spdlog.h>

#include "core/backend.hpp"
#include "core/cli/cli_spec.hpp"
#include "core/cli/deliver.hpp"
#include "core/cli/global_options.hpp"
#include "core/words/language.hpp"
#include "core/words/words.hpp"
#include "core/cli/help_format.hpp"
#include "core/cli/log_sink.hpp"
#include "core/cli/output.hpp"
#include "core/cli/terminal.hpp"
#include "core/cli/usage_message.hpp"
#include "core/course/exercise.hpp"
#include "core/log.hpp"
#include "core/visible_gpus.hpp"
#include "core/errors.hpp"
#include "core/report/json_renderer.hpp"
#include "core/version.hpp"
#if CUDASYNC_HAVE_CUDA
#include "core/cuda/device.hpp"
#endif

namespace cudasync::cli {

namespace {

// "Exit codes:" and one line per code, in the run's language (the man page reads the English one).
std::string exit_codes() { return words::core("cli.exit-codes"); }

// spdlog's default logger writes to stdout, where tables and JSON go; replace it with stderr
// (core/cli/log_sink: the prefix, and wrapping on a terminal).
void setup_logging() {
  auto logger = std::make_shared<spdlog::logger>("cudasync", stderr_log_sink());
  spdlog::set_default_logger(logger);
}

std::string version_text() {
  std::string s = std::string("cudasync ") + kToolVersion + " (git " + kGitSha + ")\n";
  if (kCudaBuiltIn) {
    s += std::string("CUDA: built in (toolkit ") + kCudaToolkitVersion +
         ", runtime linked statically), GPU and reference-model backends\n";
    s += "NVRTC: loaded at run time (libnvrtc.so." + std::string(kCudaToolkitVersion).substr(0, std::string(kCudaToolkitVersion).find('.')) +
         "), for the kernel exercises\n";
  } else {
    s += "CUDA: not built in: model-only binary (the reference model runs every lesson; timings need a GPU build)\n";
  }
  s += kNcclBuiltIn ? std::string("NCCL: loaded at run time (built against ") + kNcclVersion + "), for multi-gpu\n"
                    : std::string("NCCL: not built in\n");
  s += "md4c: loaded at run time (libmd4c.so.0), for explain";
  return s;
}

const char* kEmptyJsonFile =
    "--json= names no file; accepted: --json=FILE to write the document to FILE, or --json alone for stdout";

bool ctx_color(const GlobalOptions& o) {
  return use_color(o.color, isatty(STDOUT_FILENO) != 0, std::getenv("NO_COLOR"), std::getenv("TERM"));
}

// A lesson that runs on one GPU, the default one (--device 0 or none), sees only that GPU: CUDA
// starts every GPU it can see (core/visible_gpus.hpp), and the GPU this process calls 0 stays its 0.
// Other devices keep the full view (their numbers are the student's), as do tools, which list GPUs.
// True when it narrowed the view.
bool narrow_visible_gpus(const Command& c, const GlobalOptions& o) {
  if (c.kind != CommandKind::lesson || c.gpus != 1 || o.backend == BackendRequest::model || o.device.value_or(0) != 0)
    return false;
  const auto entry = visible_device_entry(0, std::getenv("CUDA_VISIBLE_DEVICES"));
  if (!entry) return false;
  setenv("CUDA_VISIBLE_DEVICES", entry->c_str(), 1);
  return true;
}

int exit_code_of(const report::Report& r) {
  if (r.checks_failed() > 0) return static_cast<int>(ExitCode::check_failed);
  if (r.fully_waived()) return static_cast<int>(ExitCode::waived);
  return static_cast<int>(ExitCode::ok);
}

}  // namespace

namespace {
// `cudasync 3` runs the third lesson, as cudasync list numbers them: the number, when it is the
// first word, becomes the lesson's name.
std::vector<std::string> lesson_numbers_named(int argc, char** argv, const std::vector<Command>& commands) {
  std::vector<std::string> args(argv, argv + argc);
  if (argc < 2) return args;
  const std::string first = args[1];
  if (first.empty() || first.size() > 3 || first.find_first_not_of("0123456789") != std::string::npos) return args;
  std::vector<std::string> lessons;
  for (const Command& c : commands)
    if (c.kind == CommandKind::lesson) lessons.push_back(c.name);
  const std::size_t n = std::stoul(first);
  if (n >= 1 && n <= lessons.size()) args[1] = lessons[n - 1];
  return args;
}
}  // namespace

int run_app(int argc, char** argv_given, const std::vector<Command>& commands) {
  std::vector<std::string> named = lesson_numbers_named(argc, argv_given, commands);
  std::vector<char*> argv_named;
  for (auto& a : named) argv_named.push_back(a.data());
  argv_named.push_back(nullptr);
  char** argv = argv_named.data();
  const bool stdout_closed = guard_standard_streams();
  setup_logging();
  // The help, the part list and the lessons' option help are built before CLI11 parses: they are
  // written in the language --lang names (read here from argv; a bad value is refused by the parse
  // itself) or else the environment's.
  words::set_language(words::lang_from_environment());
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;
    const std::string value = a == "--lang" && i + 1 < argc ? argv[i + 1] : a.rfind("--lang=", 0) == 0 ? a.substr(7) : "";
    if (const auto lang = words::parse_lang(value)) words::set_language(*lang);
    // The man page and the completions are made from --cli-spec: always in English.
    if (a == "--cli-spec") {
      words::set_language(words::Lang::en);
      break;
    }
  }
  CLI::App app{words::core("cli.description"), "cudasync"};
  use_help_formatter(app, static_cast<std::size_t>(terminal_width()));  // before the subcommands: they inherit it
  app.set_help_flag("-h,--help", words::core("cli.help-flag"));
  app.footer(exit_codes());
  app.set_version_flag("--version", version_text(), words::core("cli.version-flag"));
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
    // A one-line summary is the catalog's: a lesson's lesson.summary in its own, a tool's
    // command.<name> in core's; in the language --lang chose, and in English for --cli-spec.
    const bool lesson = c.kind == CommandKind::lesson;
    const std::string catalog = lesson ? c.name : "core";
    const std::string key = lesson ? "lesson.summary" : "command." + c.name;
    CLI::App* sub = app.add_subcommand(c.name, words::say(catalog, key));
    attached.push_back({&c, sub, c.attach(*sub)});
    const std::string footer = sub->get_footer();
    sub->footer(footer + (footer.empty() ? "" : "\n") + exit_codes());
    summaries.push_back({c.name, words::say_in(words::Lang::en, catalog, key), lesson, c.parts, {}, {}});
    if (c.course) {
      for (const auto& e : c.course->exercises)
        if (e.kind == course::Kind::kernel) summaries.back().kernel_exercises.push_back(e.number);
      // What each need is for: the lesson catalog's sentence (the manifest names its key).
      for (const auto& [need, for_key] : c.course->needs)
        summaries.back().needs.emplace_back(need, words::say(c.name, for_key));
    }
  }
  add_cli_spec_flag(app);  // hidden: the man page and completions are generated from it

  report::RunMeta meta;
  for (int i = 0; i < argc; ++i) meta.argv.emplace_back(argv[i]);
  const std::vector<std::string> args(meta.argv.begin() + (argc > 0 ? 1 : 0), meta.argv.end());
  const JsonTarget json = json_target_from_argv(args);

  // A usage error found before a run: stderr, and with --json the error document.
  const auto usage_error = [&](const std::string& message) {
    if (json.empty_file) {  // no document can be written: both errors on stderr
      std::cerr << "cudasync: error: " << message_text(message) << "\n";
      if (message != kEmptyJsonFile) std::cerr << "cudasync: error: " << kEmptyJsonFile << "\n";
      return static_cast<int>(ExitCode::usage);
    }
    try {
      Output out(json.target, false, stdout_closed, meta);
      out.error("usage", message, static_cast<int>(ExitCode::usage));
      if (const auto lost = out.finish()) std::cerr << "cudasync: error: " << *lost << "\n";
    } catch (const Error& inner) {
      std::cerr << "cudasync: error: " << message_text(message) << "\ncudasync: error: " << message_text(inner.what()) << "\n";
    }
    return static_cast<int>(ExitCode::usage);
  };
  // --help, --version and --cli-spec end the parse early: taken from after "--" they are words
  // the command has no argument for.
  const auto from_after_dashes = [&](const char* flag) -> std::optional<std::string> {
    const auto end_of_options = std::find(args.begin(), args.end(), "--");
    const bool before = std::any_of(args.begin(), end_of_options, [flag](const std::string& a) {
      return a == flag || a.rfind(std::string(flag) + "=", 0) == 0 || (std::string(flag) == "--help" && a == "-h");
    });
    return before ? std::nullopt : after_dashes_problem(app, args);
  };
  // --help and --version print text; with --json they would leave no document.
  const auto text_only = [&](const CLI::ParseError& e, const char* what) {
    if (const auto problem = from_after_dashes(what)) return usage_error(*problem);
    if (json.target.empty() && !json.empty_file) {
      if (std::string(what) == "--cli-spec") std::cout << cli_spec(app, summaries).dump(2) << '\n';
      const int code = app.exit(e);
      if (const auto lost = stdout_failure(stdout_closed)) {
        std::cerr << "cudasync: error: " << *lost << "\n";
        return static_cast<int>(ExitCode::usage);
      }
      return code;
    }
    return usage_error(std::string(what) + " prints text and does not combine with --json; accepted: " + what +
                       " alone, or --json without it");
  };
  // --cli-spec prints its JSON while CLI11 parses: judged before, so a --json run never gets two documents.
  const auto end_of_options = std::find(args.begin(), args.end(), "--");
  const bool spec = std::any_of(args.begin(), end_of_options, [](const std::string& a) {
    return a == "--cli-spec" || a.rfind("--cli-spec=", 0) == 0;  // CLI11 takes --cli-spec=1 as the flag too
  });
  if (const auto empty = empty_inline_value(app, args)) return usage_error(*empty);
  if (const auto empty = empty_list_item(app, args)) return usage_error(*empty);
  // A first word that is no command ("explian warp-primitives"): named as such, with the nearest.
  if (!args.empty() && !args[0].empty() && args[0][0] != '-') {
    std::vector<std::string> names;
    bool known = false;
    for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; })) {
      names.push_back(s->get_name());
      known = known || s->check_name(args[0]);
    }
    if (!known && !did_you_mean(args[0], names).empty())
      return usage_error(shown_value(args[0]) + ": no such command" + did_you_mean_text(args[0], names) +
                         "; accepted: the commands cudasync --help lists");
  }
  if ((!json.target.empty() || json.empty_file) && spec)
    return usage_error("--cli-spec prints the command line's definition and does not combine with --json; accepted: "
                       "--cli-spec alone, or --json without it");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return text_only(e, "--help");
  } catch (const CLI::CallForAllHelp& e) {
    return text_only(e, "--help");
  } catch (const CLI::CallForVersion& e) {
    return text_only(e, "--version");
  } catch (const CLI::Success& e) {  // --cli-spec printed the definition
    return text_only(e, "--cli-spec");
  } catch (const CLI::ParseError& e) {
    // A word after "--" the command had no argument for may be what CLI11 refused.
    return usage_error(after_dashes_problem(app, args).value_or(usage_message(app, e, args)));
  }
  if (const auto problem = after_dashes_problem(app, args)) return usage_error(*problem);
  if (json.empty_file) return usage_error(kEmptyJsonFile);
  if (const auto empty = empty_export_file(args)) return usage_error(*empty);
  if (const auto empty = empty_value_problem(app)) return usage_error(*empty);
  opts.json_target = json.target;  // the last --json, as the error paths read it

  if (opts.quiet) spdlog::set_level(spdlog::level::err);
  else if (opts.verbose > 0) spdlog::set_level(spdlog::level::debug);

  meta.backend_requested = to_string(opts.backend);
  std::unique_ptr<Output> out;
  // Every way out of a run: the --json file and stdout are checked before the exit code stands.
  const auto finish = [&](int code) {
    if (const auto lost = out ? out->finish() : stdout_failure(stdout_closed)) {
      std::cerr << "cudasync: error: " << *lost << "\n";
      return static_cast<int>(ExitCode::usage);
    }
    return code;
  };
  try {
    words::set_language(opts.lang.empty() ? words::lang_from_environment() : *words::parse_lang(opts.lang));
    out = std::make_unique<Output>(opts.json_target, ctx_color(opts), stdout_closed, meta);
    out->add_exports(out_opts);
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
    ctx.color = ctx_color(opts);
    ctx.max_memory = opts.max_memory;
    ctx.commands = summaries;
    ctx.lang = words::code(words::language());
    ctx.ends_process = true;
    // Combinations are judged before a backend is chosen: a usage error never touches a GPU.
    if (chosen->attached.validate) chosen->attached.validate(ctx);
    const bool narrowed = narrow_visible_gpus(*chosen->command, opts);
    if (chosen->command->kind != CommandKind::tool) {  // a lesson, or a course command that runs them
      // --backend model asks nothing of the CUDA driver: choose_backend needs no probe for it.
      static const GpuProbe not_probed{};
      const GpuProbe& probe = opts.backend == BackendRequest::model ? not_probed : ctx.gpus();
      meta.driver_version = probe.driver_version;
      meta.runtime_version = probe.runtime_version;
      const BackendChoice choice = choose_backend(opts.backend, opts.device, probe);
      spdlog::info("{}", choice.said);
      ctx.gpu = choice.gpu;
      ctx.device = choice.device;
      meta.device = choice.device;
      meta.backend_used = choice.gpu ? "gpu" : "model";
      meta.backend_reason = choice.reason;
#if CUDASYNC_HAVE_CUDA
      // A narrowed run's GPU is the runtime's device 0, its default: the context starts at the first
      // CUDA call (about 100 ms), after the lesson has started its child processes, which then
      // start their own CUDA beside it. Any other device is selected now.
      if (ctx.gpu && !(narrowed && ctx.device->index == 0)) {
        const auto t1 = std::chrono::steady_clock::now();
        cuda::select_device(ctx.device->index);
        spdlog::debug("GPU {} selected: {} ms", ctx.device->index,
                      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t1).count());
      }
#else
      (void)narrowed;
#endif
    }
    const report::Report r = chosen->attached.run(ctx);
    {
      const log::Timed timed("report written");
      out->report(r);
    }
    return finish(exit_code_of(r));
  } catch (const Error& e) {
    if (out) out->error(e);
    else std::cerr << "cudasync: error: " << message_text(e.what()) << "\n";
    return finish(static_cast<int>(e.code));
  } catch (const std::exception& e) {
    const std::string msg = std::string("internal error: ") + e.what();
    if (out) out->error("internal", msg, static_cast<int>(ExitCode::check_failed));
    else std::cerr << "cudasync: error: " << message_text(msg) << "\n";
    return finish(static_cast<int>(ExitCode::check_failed));
  }
}

}  // namespace cudasync::cli
