// Checked option values (core/cli/option_checks.hpp), checked arithmetic (core/checked.hpp) and
// the one wording of CLI11's usage errors (core/cli/usage_message.hpp): the option, the value given
// and what is accepted, for any option, hidden or not; values shown printable. On apps built here.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/checked.hpp"
#include "core/cli/global_options.hpp"
#include "core/cli/option_checks.hpp"
#include "core/cli/usage_message.hpp"

namespace cudasync::cli {
namespace {

constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();

TEST(ParseWhole, DigitsOnlyAndNeverWraps) {
  EXPECT_EQ(parse_whole("0"), 0u);
  EXPECT_EQ(parse_whole("42"), 42u);
  EXPECT_EQ(parse_whole("18446744073709551615"), kMax64);
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1e3", "0x10", "1.5", "18446744073709551616",
                          "99999999999999999999999", "\xff", "１"})
    EXPECT_FALSE(parse_whole(bad).has_value()) << bad;
}

TEST(ParseSize, UnitsArePowersOf1024) {
  EXPECT_EQ(parse_size("1073741824"), std::uint64_t{1} << 30);
  EXPECT_EQ(parse_size("1G"), std::uint64_t{1} << 30);
  EXPECT_EQ(parse_size("4GiB"), std::uint64_t{4} << 30);
  EXPECT_EQ(parse_size("512m"), std::uint64_t{512} << 20);
  EXPECT_EQ(parse_size("64KB"), std::uint64_t{64} << 10);
  EXPECT_EQ(parse_size("2t"), std::uint64_t{2} << 40);
  EXPECT_EQ(parse_size("7b"), 7u);
  for (const char* bad : {"", "G", "1Q", "1.5G", "-1G", "1 G", "16777216T", "99999999999999999999"})
    EXPECT_FALSE(parse_size(bad).has_value()) << bad;
}

TEST(SizeText, SaysTheUnitAndTheBytes) {
  EXPECT_EQ(size_text(512), "512 bytes");
  EXPECT_EQ(size_text(std::uint64_t{1} << 30), "1.0 GiB (1,073,741,824 bytes)");
  EXPECT_EQ(size_text(std::uint64_t{3} << 29), "1.5 GiB (1,610,612,736 bytes)");
}

TEST(Checked, ProductsAndSumsOverflowToNullopt) {
  EXPECT_EQ(checked_mul(1u << 30, 4), std::uint64_t{4} << 30);
  EXPECT_FALSE(checked_mul(kMax64, 2).has_value());
  EXPECT_EQ(checked_product({1024, 1024, 4}), 4u << 20);
  EXPECT_FALSE(checked_product({std::uint64_t{1} << 32, std::uint64_t{1} << 32}).has_value());
  EXPECT_EQ(checked_add(1, 2), 3u);
  EXPECT_FALSE(checked_add(kMax64, 1).has_value());
  EXPECT_EQ(checked_sum({1, 2, 3}), 6u);
  EXPECT_FALSE(checked_sum({1, std::nullopt}).has_value());
  EXPECT_FALSE(checked_sum({kMax64, 1}).has_value());
}

// An app with one count option, parsed from `args` (in order).
struct CountApp {
  CLI::App app{"test", "t"};
  int threads = 1;
  std::optional<int> device;
  std::uint64_t seed = 1;
  std::vector<std::string> list;
  CountApp() {
    add_count(app, "--threads", threads, 32, "Threads in the block");
    add_count(app, "--device", device, 1023, "GPU index", 0);
    add_count(app, "--seed", seed, kMax64, "Seed", 0);
    app.add_option("--width", threads, "Width")->check(CLI::IsMember({2, 4, 8}));
    app.add_option("--delta", threads, "Delta")->check(CLI::Range(0, 31));
    app.add_option("--plain", threads, "A plain int");
    app.add_option("--child", threads)->group("");  // hidden
    app.add_option("--list", list, "A list")->delimiter(',')->check(CLI::IsMember({"ab", "b"}));
  }
  // The usage message of parsing `args`, or "" when it parses.
  std::string error_of(const std::vector<std::string>& args) {
    try {
      parse(args);
    } catch (const CLI::ParseError& e) {
      return usage_message(app, e, args);
    }
    return "";
  }
  void parse(std::vector<std::string> args) {
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
  }
};

TEST(AddCount, RangeInTheHelpAndChecksIn64Bit) {
  CountApp a;
  EXPECT_NE(a.app.get_option("--threads")->get_description().find("(1..32)"), std::string::npos);
  EXPECT_NE(a.app.help().find("(1..32)"), std::string::npos);
  a.parse({"--threads", "32", "--device", "0", "--seed", "18446744073709551615"});
  EXPECT_EQ(a.threads, 32);
  EXPECT_EQ(a.device, 0);
  EXPECT_EQ(a.seed, kMax64);
  for (const char* bad : {"0", "33", "-1", "", "4294967297", "18446744073709551616", "abc"}) {
    CountApp b;
    EXPECT_THROW(b.parse({"--threads", bad}), CLI::ValidationError) << bad;
  }
  CountApp c;
  EXPECT_THROW(c.parse({"--seed", "-1"}), CLI::ValidationError);  // never wrapped to 2^64-1
}

TEST(AddCount, RefusesAMaximumItsTypeCannotHold) {
  CLI::App app;
  std::int8_t small = 0;
  EXPECT_THROW(add_count(app, "--small", small, 1000, "too big a maximum"), std::logic_error);
}

TEST(AcceptedText, FromCoreChecksCli11ValidatorsAndTypes) {
  CountApp a;
  EXPECT_EQ(accepted_text(*a.app.get_option("--threads")), "a whole number 1..32");
  EXPECT_EQ(accepted_text(*a.app.get_option("--device")), "a whole number 0..1023");
  EXPECT_EQ(accepted_text(*a.app.get_option("--width")), "one of 2, 4, 8");
  EXPECT_EQ(accepted_text(*a.app.get_option("--delta")), "a whole number 0..31");
  EXPECT_EQ(accepted_text(*a.app.get_option("--plain")), "a whole number");
}

// Every usage error names the option, the value given and what is accepted.
TEST(UsageMessage, NamesTheOptionTheValueAndWhatIsAccepted) {
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> has;
  };
  const Case cases[] = {
      {{"--threads", "2147483648"}, {"--threads 2147483648", "out of range", "accepted: a whole number 1..32"}},
      {{"--device", ""}, {"--device ''", "accepted: a whole number 0..1023"}},
      {{"--seed", "-1"}, {"--seed -1", "accepted: a whole number 0..18446744073709551615"}},
      {{"--width", "2147483648"}, {"--width 2147483648", "accepted: one of 2, 4, 8"}},
      {{"--width", "3"}, {"--width 3", "accepted: one of 2, 4, 8"}},
      {{"--delta", "abc"}, {"--delta abc", "not a number", "accepted: a whole number 0..31"}},
      {{"--plain", "2147483648"}, {"--plain 2147483648", "accepted: a whole number"}},
      {{"--threads"}, {"--threads needs a value", "accepted: a whole number 1..32"}},
      // A hidden option: CLI11 names it "" in its own message.
      {{"--child"}, {"--child needs a value", "accepted: a whole number"}},
      {{"--child", "x"}, {"--child x", "accepted: a whole number"}},
      {{"--frob", "1"}, {"--frob: no such option", "accepted:", "--threads", "(unexpected too: 1)"}},
      {{"--threads", "\xff"}, {"--threads $'\\xff'", "accepted: a whole number 1..32"}},
      // The refused item of a list, though the accepted values quote it ("a" is in "ab").
      {{"--list", "b,a"}, {"--list a: not one of the choices", "accepted: one of ab, b"}},
  };
  for (const auto& c : cases) {
    CountApp a;
    const std::string m = a.error_of(c.args);
    for (const auto& h : c.has) EXPECT_NE(m.find(h), std::string::npos) << "'" << h << "' not in: " << m;
    EXPECT_NE(m.find("(see t --help)"), std::string::npos) << m;
    EXPECT_TRUE(is_utf8(m)) << m;
  }
}

TEST(UsageMessage, GlobalOptionsSayWhatTheyAccept) {
  CLI::App app{"test", "t"};
  GlobalOptions o;
  add_global_options(app, o);
  const auto error_of = [&](std::vector<std::string> args) {
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    try {
      app.parse(reversed);
    } catch (const CLI::ParseError& e) {
      return usage_message(app, e, args);
    }
    return std::string();
  };
  EXPECT_NE(error_of({"--device", "2147483648"}).find("--device 2147483648: out of range 0..1023; accepted: a whole number 0..1023"),
            std::string::npos);
  EXPECT_NE(error_of({"--color", "x"}).find("accepted: one of auto, always, never"), std::string::npos);
  EXPECT_NE(error_of({"--max-memory", "5Q"}).find("--max-memory 5Q: not a size; accepted: a size"), std::string::npos);
  EXPECT_NE(error_of({"--max-memory", "1k"}).find("below the smallest"), std::string::npos);
}

TEST(ShownValue, QuotesEscapesAndCuts) {
  EXPECT_EQ(shown_value("42"), "42");
  EXPECT_EQ(shown_value(""), "''");
  EXPECT_EQ(shown_value("a b"), "'a b'");
  EXPECT_EQ(shown_value("it's"), "'it'\\''s'");
  EXPECT_EQ(shown_value("\xff"), "$'\\xff'");
  EXPECT_EQ(shown_value("a\nb"), "$'a\\x0ab'");
  EXPECT_EQ(shown_value("ü"), "'ü'");
  const std::string long_value(10000, 'a');
  const std::string s = shown_value(long_value);
  EXPECT_LT(s.size(), 100u);
  EXPECT_NE(s.find("(10000 bytes)"), std::string::npos);
}

TEST(IsUtf8, RejectsBadSequences) {
  EXPECT_TRUE(is_utf8("plain"));
  EXPECT_TRUE(is_utf8("ü½€😀"));
  EXPECT_TRUE(is_utf8(std::string("a\0b", 3)));
  EXPECT_FALSE(is_utf8("\xff"));
  EXPECT_FALSE(is_utf8("x\xc3"));          // cut short
  EXPECT_FALSE(is_utf8("\xc0\xaf"));       // overlong
  EXPECT_FALSE(is_utf8("\xed\xa0\x80"));   // a surrogate
  EXPECT_FALSE(is_utf8("\xf4\x90\x80\x80"));  // past U+10FFFF
}

TEST(PrintableText, EscapesWhatATerminalShouldNotGet) {
  EXPECT_EQ(printable_text("unknown predicate '\xff'"), "unknown predicate '\\xff'");
  EXPECT_EQ(printable_text("\x1b[31mred"), "\\x1b[31mred");
  EXPECT_EQ(printable_text("ü"), "ü");
}

}  // namespace
}  // namespace cudasync::cli
