// use_color(): --color always / never / auto against a terminal, NO_COLOR (https://no-color.org:
// "when present and not an empty string") and TERM=dumb. Also the global options' parsing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/cli/global_options.hpp"

using cudasync::cli::ColorMode;
using cudasync::cli::use_color;

TEST(UseColor, AlwaysWinsOverEverything) {
  for (bool tty : {false, true})
    for (const char* no_color : {static_cast<const char*>(nullptr), "", "1"})
      for (const char* term : {static_cast<const char*>(nullptr), "dumb", "xterm-256color"})
        EXPECT_TRUE(use_color(ColorMode::always, tty, no_color, term))
            << "tty " << tty << " NO_COLOR " << (no_color ? no_color : "(unset)") << " TERM " << (term ? term : "(unset)");
}

TEST(UseColor, NeverWinsOverEverything) {
  for (bool tty : {false, true})
    for (const char* no_color : {static_cast<const char*>(nullptr), "", "1"})
      for (const char* term : {static_cast<const char*>(nullptr), "dumb", "xterm-256color"})
        EXPECT_FALSE(use_color(ColorMode::never, tty, no_color, term));
}

TEST(UseColor, AutoFollowsTheTerminal) {
  EXPECT_TRUE(use_color(ColorMode::automatic, true, nullptr, "xterm-256color"));
  EXPECT_TRUE(use_color(ColorMode::automatic, true, nullptr, nullptr));  // TERM unset is not "dumb"
  EXPECT_FALSE(use_color(ColorMode::automatic, false, nullptr, "xterm-256color"));
  EXPECT_FALSE(use_color(ColorMode::automatic, false, nullptr, nullptr));
}

TEST(UseColor, AutoHonoursNoColor) {
  EXPECT_FALSE(use_color(ColorMode::automatic, true, "1", "xterm-256color"));
  EXPECT_FALSE(use_color(ColorMode::automatic, true, "0", "xterm"));  // any non-empty value
  EXPECT_FALSE(use_color(ColorMode::automatic, false, "1", "xterm"));
  // An empty NO_COLOR does not count (no-color.org).
  EXPECT_TRUE(use_color(ColorMode::automatic, true, "", "xterm"));
}

TEST(UseColor, AutoHonoursDumbTerminal) {
  EXPECT_FALSE(use_color(ColorMode::automatic, true, nullptr, "dumb"));
  EXPECT_FALSE(use_color(ColorMode::automatic, true, "", "dumb"));
  EXPECT_TRUE(use_color(ColorMode::automatic, true, nullptr, "dumb-ish"));  // only exactly "dumb"
  EXPECT_TRUE(use_color(ColorMode::automatic, true, nullptr, ""));
}

namespace {
cudasync::cli::GlobalOptions parse(std::vector<std::string> args) {
  CLI::App app{"test"};
  cudasync::cli::GlobalOptions o;
  cudasync::cli::add_global_options(app, o);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses a reversed vector
  app.parse(reversed);
  return o;
}
}  // namespace

TEST(GlobalOptions, DefaultsAndValues) {
  const auto d = parse({});
  EXPECT_EQ(d.json_target, "");
  EXPECT_FALSE(d.device.has_value());
  EXPECT_EQ(d.backend, cudasync::BackendRequest::automatic);
  EXPECT_EQ(d.color, ColorMode::automatic);
  EXPECT_EQ(d.seed, 1u);
  EXPECT_FALSE(d.quiet);
  EXPECT_FALSE(d.bench);

  const auto o = parse({"--json", "--device", "1", "--backend", "model", "--color", "never", "--seed", "7", "-vv", "--bench"});
  EXPECT_EQ(o.json_target, "-");
  EXPECT_EQ(o.device, 1);
  EXPECT_EQ(o.backend, cudasync::BackendRequest::model);
  EXPECT_EQ(o.color, ColorMode::never);
  EXPECT_EQ(o.seed, 7u);
  EXPECT_EQ(o.verbose, 2);
  EXPECT_TRUE(o.bench);

  EXPECT_EQ(parse({"--json=out.json"}).json_target, "out.json");
  EXPECT_EQ(parse({"--color", "ALWAYS"}).color, ColorMode::always);  // case-insensitive
  EXPECT_EQ(parse({"--backend", "GPU"}).backend, cudasync::BackendRequest::gpu);
}

TEST(GlobalOptions, BadNamesAreRejected) {
  EXPECT_THROW(parse({"--color", "sometimes"}), CLI::ValidationError);
  EXPECT_THROW(parse({"--backend", "cpu"}), CLI::ValidationError);
}
