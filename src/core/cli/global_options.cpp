#include "core/cli/global_options.hpp"

#include <cctype>
#include <limits>
#include <map>

#include "core/cli/option_checks.hpp"

namespace cudasync::cli {

namespace {
std::string lowercase(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

void add_global_options(CLI::App& app, GlobalOptions& o) {
  // `--json` alone writes to stdout; `--json=FILE` writes to FILE. A flag with a default value
  // keeps `--json warp-primitives` from reading the lesson name as a file name.
  app.add_flag("--json{-}", o.json_target,
               "Write the run as one JSON document: --json to stdout, --json=FILE to FILE (logs stay on stderr). "
               "FILE needs the '=': in '--json lock' the word could be a file or the lesson");
  // A list of GPUs ("0,1") is pointed to the lesson that takes one, before the range check.
  app.add_option("--device", o.device,
                 "GPU index to use, counted after CUDA_VISIBLE_DEVICES remapping (0.." +
                     std::to_string(kMaxDeviceIndex) + ")")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            if (s.find(',') == std::string::npos) return "";
            return "give one GPU index; a lesson on several GPUs takes them with its own option "
                   "(multi-gpu --devices A,B)";
          },
          ""))
      ->check(whole_range(0, kMaxDeviceIndex));
  // Named words only: a CheckedTransformer would also accept the enum's numbers ("--color 1").
  const std::map<std::string, BackendRequest> backends{
      {"auto", BackendRequest::automatic}, {"gpu", BackendRequest::gpu}, {"model", BackendRequest::model}};
  app.add_option_function<std::string>(
         "--backend", [&o, backends](const std::string& s) { o.backend = backends.at(lowercase(s)); },
         "auto (the GPU if usable, else the CPU reference model), gpu, or model")
      ->check(CLI::IsMember({"auto", "gpu", "model"}, CLI::ignore_case))
      ->default_str("auto");
  const std::map<std::string, ColorMode> colors{
      {"auto", ColorMode::automatic}, {"always", ColorMode::always}, {"never", ColorMode::never}};
  app.add_option_function<std::string>(
         "--color", [&o, colors](const std::string& s) { o.color = colors.at(lowercase(s)); },
         "Colour in tables: auto (a terminal, and NO_COLOR unset), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}, CLI::ignore_case))
      ->default_str("auto");
  app.add_flag("-v,--verbose", o.verbose, "More log lines on stderr (repeatable)");
  app.add_flag("-q,--quiet", o.quiet, "Only errors on stderr");
  add_count(app, "--seed", o.seed, std::numeric_limits<std::uint64_t>::max(),
            "Seed for random inputs and predicates (same seed, same run)", 0);
  app.add_option_function<std::string>(
         "--max-memory", [&o](const std::string& s) { o.max_memory = *parse_size(s); },
         "Host memory a run may allocate: bytes, or with K, M, G, T (powers of 1024); a run that would need more "
         "stops first, naming its estimate (default 1G)")
      ->check(size_check(kMinMaxMemory))
      ->default_str("1G");
  app.add_flag("--bench", o.bench, "Measure costs with more repetitions");
  app.add_option("--lang", o.lang,
                 "Language of what is printed: en or zh (default: zh when LC_ALL, LC_MESSAGES or LANG, the first "
                 "set, starts with zh; else en). Ids, numbers and the JSON's shape are the same in both")
      ->check(CLI::IsMember({"en", "zh"}));
}

bool use_color(ColorMode mode, bool stdout_is_tty, const char* no_color_env, const char* term_env) {
  if (mode == ColorMode::always) return true;
  if (mode == ColorMode::never) return false;
  if (no_color_env && *no_color_env) return false;
  if (term_env && std::string(term_env) == "dumb") return false;
  return stdout_is_tty;
}

}  // namespace cudasync::cli
