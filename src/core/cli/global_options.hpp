#pragma once
// Options every subcommand accepts, before or after its name.
#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "core/backend.hpp"
#include "core/memory_budget.hpp"

namespace cudasync::cli {

enum class ColorMode { automatic, always, never };

struct GlobalOptions {
  std::string json_target;  // "" no JSON; "-" stdout; else a file
  std::optional<int> device;
  BackendRequest backend = BackendRequest::automatic;
  ColorMode color = ColorMode::automatic;
  int verbose = 0;
  bool quiet = false;
  std::uint64_t seed = 1;
  bool bench = false;
  std::uint64_t max_memory = kDefaultMaxMemory;  // --max-memory
  std::string lang;  // --lang en|zh; "" when not given: the locale decides (core/words/language.hpp)
};

// The largest --device index (a GPU index counted after CUDA_VISIBLE_DEVICES remapping).
inline constexpr std::uint64_t kMaxDeviceIndex = 1023;

void add_global_options(CLI::App& app, GlobalOptions& opts);

// auto: colour only on a terminal, never when NO_COLOR is set (https://no-color.org) or TERM=dumb.
bool use_color(ColorMode mode, bool stdout_is_tty, const char* no_color_env, const char* term_env);

}  // namespace cudasync::cli
