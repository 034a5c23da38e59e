#include "core/cli/global_options.hpp"

#include <cctype>
#include <limits>
#include <map>

#include "core/cli/option_checks.hpp"
#include "core/words/words.hpp"

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
  app.add_flag("--json{-}", o.json_target, words::core("option.json"));
  // A list of GPUs ("0,1") is pointed to the lesson that takes one, before the range check.
  app.add_option("--device", o.device, words::core("option.device", {{"max", kMaxDeviceIndex}}))
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
         words::core("option.backend"))
      ->check(CLI::IsMember({"auto", "gpu", "model"}, CLI::ignore_case))
      ->default_str("auto");
  const std::map<std::string, ColorMode> colors{
      {"auto", ColorMode::automatic}, {"always", ColorMode::always}, {"never", ColorMode::never}};
  app.add_option_function<std::string>(
         "--color", [&o, colors](const std::string& s) { o.color = colors.at(lowercase(s)); },
         words::core("option.color"))
      ->check(CLI::IsMember({"auto", "always", "never"}, CLI::ignore_case))
      ->default_str("auto");
  app.add_flag("-v,--verbose", o.verbose, words::core("option.verbose"));
  app.add_flag("-q,--quiet", o.quiet, words::core("option.quiet"));
  add_count(app, "--seed", o.seed, std::numeric_limits<std::uint64_t>::max(), words::core("option.seed"), 0);
  app.add_option_function<std::string>(
         "--max-memory", [&o](const std::string& s) { o.max_memory = *parse_size(s); },
         words::core("option.max-memory"))
      ->check(size_check(kMinMaxMemory))
      ->default_str("1G");
  app.add_flag("--bench", o.bench, words::core("option.bench"));
  app.add_option("--lang", o.lang, words::core("option.lang"))
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
