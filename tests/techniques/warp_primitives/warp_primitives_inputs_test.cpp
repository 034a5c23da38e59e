// The inputs a student types: predicates (--predicate), keys (--key), values and masks (--mask).
// The accepted forms are the ones warp_primitives_lesson.hpp documents (kPredicateForms,
// kKeyForms, "Hex (0x...) or decimal, 32 bits").
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "techniques/warp_primitives/lesson.hpp"

namespace wp = cudasync::warp_primitives;
using PK = wp::Predicate::Kind;
using KK = wp::Key::Kind;

namespace {

std::uint32_t ballot_of(const wp::Lanes& p) {
  std::uint32_t b = 0;
  for (int l = 0; l < wp::kWarpSize; ++l)
    if (p[static_cast<std::size_t>(l)] != 0) b |= 1u << l;
  return b;
}

std::uint32_t predicate_bits(const std::string& text, std::uint64_t seed = 1) {
  const auto p = wp::parse_predicate(text);
  EXPECT_TRUE(p.has_value()) << text;
  return p ? ballot_of(wp::evaluate(*p, seed)) : 0u;
}

}  // namespace

// ---------------------------------------------------------------- predicates

TEST(WarpInputsPredicate, NamedForms) {
  EXPECT_EQ(wp::parse_predicate("even")->kind, PK::even);
  EXPECT_EQ(wp::parse_predicate("odd")->kind, PK::odd);
  EXPECT_EQ(wp::parse_predicate("true")->kind, PK::always);
  EXPECT_EQ(wp::parse_predicate("false")->kind, PK::never);
  EXPECT_EQ(wp::parse_predicate("random")->kind, PK::random);
  // Lane n's predicate is bit n: even lanes are 0x55555555, odd lanes 0xaaaaaaaa.
  EXPECT_EQ(predicate_bits("even"), 0x55555555u);
  EXPECT_EQ(predicate_bits("odd"), 0xaaaaaaaau);
  EXPECT_EQ(predicate_bits("true"), 0xffffffffu);
  EXPECT_EQ(predicate_bits("false"), 0u);
}

TEST(WarpInputsPredicate, ComparisonForms) {
  struct Case {
    const char* text;
    PK kind;
    int k;
    std::uint32_t bits;
  };
  const Case cases[] = {
      {"lane<3", PK::lt, 3, 0x7u},
      {"lane<=3", PK::le, 3, 0xfu},
      {"lane>3", PK::gt, 3, 0xfffffff0u},
      {"lane>=3", PK::ge, 3, 0xfffffff8u},
      {"lane==3", PK::eq, 3, 0x8u},
      {"lane!=3", PK::ne, 3, 0xfffffff7u},
      {"lane>0", PK::gt, 0, 0xfffffffeu},   // Fan's tid > 0
      {"lane==0", PK::eq, 0, 0x1u},         // Fan's tid == 0
      {"lane<0", PK::lt, 0, 0u},            // K = 0 is the lower end
      {"lane<32", PK::lt, 32, 0xffffffffu}, // K = 32 is the upper end
      {"lane>=32", PK::ge, 32, 0u},
      {"lane<16", PK::lt, 16, 0x0000ffffu},
  };
  for (const auto& c : cases) {
    const auto p = wp::parse_predicate(c.text);
    ASSERT_TRUE(p.has_value()) << c.text;
    EXPECT_EQ(p->kind, c.kind) << c.text;
    EXPECT_EQ(p->k, c.k) << c.text;
    EXPECT_EQ(p->text, c.text);
    EXPECT_EQ(ballot_of(wp::evaluate(*p, 1)), c.bits) << c.text;
  }
}

TEST(WarpInputsPredicate, SpacesAroundTheOperatorAreAccepted) {
  EXPECT_EQ(predicate_bits("lane < 3"), 0x7u);
  EXPECT_EQ(predicate_bits(" lane>=30 "), 0xc0000000u);
  EXPECT_EQ(predicate_bits("lane != 0"), 0xfffffffeu);
}

TEST(WarpInputsPredicate, RejectedForms) {
  for (const char* bad : {"lane<<3", "lane<33", "lane<100", "lane<-1", "lane< 3x", "lane<", "lane", "<3", "lane=3",
                          "lane=>3", "foo", "", "EVEN", "Even", "lane<3.0", "lane<9999999999", "tid<3", "even "}) {
    EXPECT_FALSE(wp::parse_predicate(bad).has_value()) << "'" << bad << "' should be rejected";
  }
}

TEST(WarpInputsPredicate, FormsTextNamesEveryForm) {
  const std::string forms = wp::kPredicateForms;
  for (const char* f : {"even", "odd", "true", "false", "random", "lane<K", "lane<=K", "lane>K", "lane>=K", "lane==K",
                        "lane!=K"})
    EXPECT_NE(forms.find(f), std::string::npos) << f;
}

TEST(WarpInputsPredicate, RandomIsReproducibleForASeedAndDiffersAcrossSeeds) {
  const auto p = *wp::parse_predicate("random");
  const auto a1 = wp::evaluate(p, 1), a2 = wp::evaluate(p, 1);
  EXPECT_EQ(a1, a2);
  for (auto v : a1) EXPECT_TRUE(v == 0 || v == 1);
  // Across several seeds the 32-bit patterns are not all the same, and a given seed is not
  // degenerate (all lanes equal) for at least most seeds.
  std::vector<std::uint32_t> patterns;
  int mixed = 0;
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    const std::uint32_t b = ballot_of(wp::evaluate(p, seed));
    EXPECT_EQ(b, ballot_of(wp::evaluate(p, seed))) << "seed " << seed;
    patterns.push_back(b);
    mixed += (b != 0u && b != 0xffffffffu) ? 1 : 0;
  }
  EXPECT_NE(ballot_of(wp::evaluate(p, 1)), ballot_of(wp::evaluate(p, 2)));
  EXPECT_NE(ballot_of(wp::evaluate(p, 7)), ballot_of(wp::evaluate(p, 8)));
  EXPECT_GE(mixed, 6);
}

TEST(WarpInputsPredicate, NonRandomFormsIgnoreTheSeed) {
  for (const char* f : {"even", "odd", "lane<7", "lane!=5"}) {
    const auto p = *wp::parse_predicate(f);
    EXPECT_EQ(wp::evaluate(p, 1), wp::evaluate(p, 12345)) << f;
  }
}

// ---------------------------------------------------------------- keys

TEST(WarpInputsKey, AcceptedForms) {
  struct Case {
    const char* text;
    KK kind;
    int k;
    int lane;
    int value;  // the key of `lane`
  };
  const Case cases[] = {
      {"lane%4", KK::mod, 4, 13, 1},        // 13 % 4
      {"lane/8", KK::div, 8, 13, 1},        // 13 / 8
      {"lane&6", KK::bit_and, 6, 13, 4},    // 0b1101 & 0b0110
      {"lane%1", KK::mod, 1, 31, 0},        // K = 1 is the smallest
      {"lane / 3", KK::div, 3, 31, 10},     // spaces accepted
      {"7", KK::constant, 7, 20, 7},
      {"0", KK::constant, 0, 3, 0},         // a constant may be 0
      {"1048576", KK::constant, 1 << 20, 0, 1 << 20},
      {"lane%1048576", KK::mod, 1 << 20, 31, 31},
  };
  for (const auto& c : cases) {
    const auto k = wp::parse_key(c.text);
    ASSERT_TRUE(k.has_value()) << c.text;
    EXPECT_EQ(k->kind, c.kind) << c.text;
    EXPECT_EQ(k->k, c.k) << c.text;
    EXPECT_EQ(k->text, c.text);
    EXPECT_EQ(wp::evaluate(*k)[static_cast<std::size_t>(c.lane)], c.value) << c.text;
  }
  // The default key lane%4 gives 0 1 2 3 0 1 2 3 ...
  const auto keys = wp::evaluate(*wp::parse_key("lane%4"));
  for (int l = 0; l < 32; ++l) EXPECT_EQ(keys[static_cast<std::size_t>(l)], l % 4) << l;
}

TEST(WarpInputsKey, RejectedForms) {
  for (const char* bad : {"lane%0", "lane/0", "lane&0", "lane%", "lane^3", "lane%-1", "lane%%4", "foo", "", "-1",
                          "1048577", "lane%1048577", "3.5", "0x10", "lane % 4x"}) {
    EXPECT_FALSE(wp::parse_key(bad).has_value()) << "'" << bad << "' should be rejected";
  }
}

// ---------------------------------------------------------------- values

TEST(WarpInputsValues, TidAndSeededRandom) {
  const auto tid = wp::make_values(wp::ValueKind::tid, 99);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(tid[static_cast<std::size_t>(l)], l);
  const auto r1 = wp::make_values(wp::ValueKind::random, 5);
  EXPECT_EQ(r1, wp::make_values(wp::ValueKind::random, 5));
  EXPECT_NE(r1, wp::make_values(wp::ValueKind::random, 6));
  for (auto v : r1) {
    EXPECT_GE(v, 0);
    EXPECT_LE(v, 99);
  }
}

// ---------------------------------------------------------------- masks

TEST(WarpInputsMask, AcceptedForms) {
  EXPECT_EQ(wp::parse_mask("0xffffffff"), 0xffffffffu);
  EXPECT_EQ(wp::parse_mask("0xFFFF0000"), 0xffff0000u);
  EXPECT_EQ(wp::parse_mask("0X0000ff00"), 0x0000ff00u);
  EXPECT_EQ(wp::parse_mask("0x1"), 0x1u);
  EXPECT_EQ(wp::parse_mask("65535"), 0xffffu);
  EXPECT_EQ(wp::parse_mask("4294967295"), 0xffffffffu);
  EXPECT_EQ(wp::parse_mask("0"), 0u);  // parsed; "names no calling lane" is rejected later, by the run
}

TEST(WarpInputsMask, RejectedForms) {
  for (const char* bad : {"0x1ffffffff", "4294967296", "-1", "-0", "", "zz", "0x", "12abc", "0xfffg", "1e3",
                          "0xffffffff ", "99999999999999999999999"}) {
    EXPECT_FALSE(wp::parse_mask(bad).has_value()) << "'" << bad << "' should be rejected";
  }
}

TEST(WarpInputsMask, DecimalWithALeadingZeroIsDecimal) {
  // "Hex (0x...) or decimal": a leading 0 must not switch to octal (std::stoull's base 0 would).
  const auto ten = wp::parse_mask("010");
  const auto eight = wp::parse_mask("08");
  EXPECT_EQ(ten, 10u);
  EXPECT_EQ(eight, 8u);
}
