// The litmus tests' reader and the PTX model that judges them (core/litmus/): every library test's
// verdict is the one litmus/library.json states, which for the tests Dat3M has in the same shape
// is the one Dat3M's PTX suite expects; the axiom and the cycle of a forbidden outcome, a witness
// for an allowed one; and a bad file named by file:line:column with what was expected.
#include <gtest/gtest.h>

#include "core/litmus/litmus_library.hpp"
#include "core/litmus/litmus_parse.hpp"
#include "core/litmus/ptx_axioms.hpp"

using namespace cudasync::litmus;

namespace {

LitmusTest litmus_parsed(const std::string& text) { return parse_litmus(text, "t.litmus"); }

std::string litmus_error_of(const std::string& text) {
  try {
    litmus_parsed(text);
  } catch (const LitmusSyntaxError& e) {
    return e.what();
  }
  return "";
}

const char* kLitmusMp = R"(PTX mp
"message passing"
{ x=0; y=0; }
 P0@cta 0,gpu 0        | P1@cta 1,gpu 0          ;
 st.weak x, 1          | ld.acquire.gpu r0, y    ;
 st.release.gpu y, 1   | ld.weak r1, x           ;
exists (P1:r0 == 1 /\ P1:r1 == 0)
)";

std::string litmus_with(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST(LitmusLibrary, EveryTestHasTheVerdictItsRowStates) {
  ASSERT_GE(library().size(), 30u);
  for (const LibraryTest& t : library()) {
    SCOPED_TRACE(t.name);
    const LitmusTest test = parse_litmus(std::string(t.text), t.name + ".litmus");
    EXPECT_EQ(test.name, t.name);
    const Verdict v = judge(test);
    EXPECT_EQ(v.reachable ? "allowed" : "forbidden", t.outcome);
    EXPECT_GT(v.consistent, 0);  // every test has executions the model accepts
    if (!v.reachable) {
      EXPECT_FALSE(v.axiom.empty());
    } else {
      EXPECT_FALSE(v.final_state.empty());  // the witness
    }
  }
}

// The shapes the issue names are all there, each with and without what orders it.
TEST(LitmusLibrary, HasTheClassicShapes) {
  for (const char* name : {"mp", "sb", "lb", "iriw", "wrc", "rwc", "isa2", "2+2w", "corr", "cowr", "corw", "coww",
                           "mp+fences.gpu", "mp+fences.cta", "mp+host.sys-fence"})
    EXPECT_NE(find_library_test(name), nullptr) << name;
}

// Where Dat3M has a test of the same shape, its expected result (1: the condition holds as written)
// says the same as the library's outcome: "exists holds" is an allowed outcome, "~exists holds" and
// "forall ... holds" a forbidden one.
TEST(LitmusLibrary, TheDat3mCitationsSayWhatTheOutcomeSays) {
  int cited = 0;
  for (const LibraryTest& t : library()) {
    if (!t.dat3m) continue;
    ++cited;
    SCOPED_TRACE(t.name);
    EXPECT_EQ(t.dat3m->file.rfind("litmus/PTX/", 0), 0u);
    EXPECT_EQ(t.dat3m->expected, 1);
    const bool exists = t.dat3m->says.rfind("exists", 0) == 0;
    EXPECT_EQ(exists ? "allowed" : "forbidden", t.outcome);
  }
  EXPECT_GE(cited, 10);
}

// Every library test says what it shows in both languages: its list entry, its file's own
// description and Dat3M's result, each in Chinese beside the English.
TEST(LitmusLibrary, EveryTestSaysItInBothLanguages) {
  for (const LibraryTest& t : library()) {
    SCOPED_TRACE(t.name);
    EXPECT_FALSE(t.about_en.empty());
    EXPECT_FALSE(t.about_zh.empty());
    EXPECT_FALSE(t.doc_zh.empty());
    if (t.dat3m) {  // the condition that holds ("~exists", "forall x == 2") is the same in both
      const std::string& en = t.dat3m->says;
      const std::size_t end = en.rfind(" holds"), colon = en.rfind(": ", end);
      const std::size_t begin = colon == std::string::npos ? 0 : colon + 2;
      EXPECT_NE(t.dat3m->says_zh.find(en.substr(begin, end - begin) + " "), std::string::npos) << t.dat3m->says_zh;
    }
  }
}

TEST(LitmusModel, AForbiddenOutcomeNamesItsAxiomAndItsCycle) {
  const Verdict v = judge(litmus_parsed(kLitmusMp));
  EXPECT_FALSE(v.reachable);
  EXPECT_TRUE(v.holds == false);
  EXPECT_EQ(v.axiom, "Causality");
  ASSERT_EQ(v.events.size(), 4u);
  // d (the data load) reads the initial value, from-reads a (the data store), which comes before
  // the release b in program order, which c observes, which comes before d: a cycle.
  ASSERT_EQ(v.cycle.size(), 4u);
  EXPECT_EQ(v.cycle.front().rel, "fr");
  EXPECT_EQ(v.cycle.front().from, v.cycle.back().to);
  std::string rels;
  for (const Step& s : v.cycle) rels += s.rel + " ";
  EXPECT_EQ(rels, "fr po obs po ");
}

TEST(LitmusModel, TheScopeDecidesAndAnAllowedOutcomeHasAWitness) {
  // The same test with .cta release and acquire across two CTAs: not morally strong, no sync.
  const Verdict v = judge(litmus_parsed(litmus_with(litmus_with(kLitmusMp, "st.release.gpu", "st.release.cta"), "ld.acquire.gpu", "ld.acquire.cta")));
  EXPECT_TRUE(v.reachable);
  EXPECT_TRUE(v.holds);
  EXPECT_TRUE(v.cycle.empty());
  EXPECT_NE(std::find(v.rf.begin(), v.rf.end(), std::pair<std::string, std::string>("d", "")), v.rf.end())
      << "d reads the initial value";
  EXPECT_NE(std::find(v.final_state.begin(), v.final_state.end(), "P1:r1 = 0"), v.final_state.end());
  // In one CTA the .cta scope is enough.
  EXPECT_FALSE(judge(litmus_parsed(litmus_with(litmus_with(litmus_with(kLitmusMp, "st.release.gpu", "st.release.cta"), "ld.acquire.gpu", "ld.acquire.cta"),
                                "P1@cta 1", "P1@cta 0"))).reachable);
  // ~exists and forall: the condition holds when the outcome is forbidden.
  EXPECT_TRUE(judge(litmus_parsed(litmus_with(kLitmusMp, "exists (", "~exists ("))).holds);
  EXPECT_TRUE(judge(litmus_parsed(litmus_with(kLitmusMp, "exists (P1:r0 == 1 /\\ P1:r1 == 0)", "forall (P1:r0 == 0 \\/ P1:r1 == 1)"))).holds);
}

TEST(LitmusModel, RmwBranchesAndTheHost) {
  // A cas lock handoff: the flag is taken with a cas, so only one thread enters.
  const Verdict cas = judge(litmus_parsed(R"(PTX cas
{ m=0; }
 P0@cta 0,gpu 0                    | P1@cta 1,gpu 0                    ;
 atom.acquire.gpu.cas r0, m, 0, 1  | atom.acquire.gpu.cas r0, m, 0, 1  ;
exists (P0:r0 == 0 /\ P1:r0 == 0)
)"));
  EXPECT_FALSE(cas.reachable);
  // A branch skips a load: the outcome needs the load to run.
  const Verdict br = judge(litmus_parsed(R"(PTX br
{ x=0; y=0; }
 P0@cta 0,gpu 0        | P1@cta 1,gpu 0          ;
 st.weak x, 1          | ld.acquire.gpu r0, y    ;
 st.release.gpu y, 1   | bne r0, 1, END          ;
                       | ld.weak r1, x           ;
                       | END:                    ;
exists (P1:r0 == 1 /\ P1:r1 == 0)
)"));
  EXPECT_FALSE(br.reachable);
  // The host is outside .gpu scope.
  EXPECT_TRUE(judge(parse_litmus(std::string(find_library_test("mp+host.gpu-fence")->text), "h")).reachable);
}

TEST(LitmusParse, ABadFileIsNamedByLineAndColumnWithWhatWasExpected) {
  EXPECT_EQ(litmus_error_of(kLitmusMp), "");
  for (const auto& [from, to, says] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"PTX mp", "X86 mp", "t.litmus:1:1: 'X86' is not PTX; expected a first line PTX NAME"},
           {"st.release.gpu y, 1", "st.release y, 1", "t.litmus:6:2: st.release needs a scope; expected .cta, .gpu or .sys"},
           {"ld.weak r1, x", "ld.weak.gpu r1, x", "t.litmus:6:26: a weak access has no scope"},
           {"ld.weak r1, x", "frob r1, x", "t.litmus:6:26: 'frob' is not an instruction cudasync models"},
           {"st.weak x, 1", "st.weak x+4, 1", "t.litmus:5:2: 'x+4' is not a location"},
           {"P1@cta 1,gpu 0", "P1@cta 1,cpu 0", "t.litmus:4:26: 'cpu 0' is not a placement; expected cta N, gpu N, warp N or host"},
           {"| ld.weak r1, x           ;", "ld.weak r1, x ;", "t.litmus:6:1: 1 cells; expected one per thread (2)"},
           {"P1:r1 == 0)", "P2:r1 == 0)", "t.litmus:7:28: 'P2' is not a thread of this test"},
           {"P1:r1 == 0)", "P1:r1 === 0)", "t.litmus:7:"},
           {"exists (P1:r0 == 1 /\\ P1:r1 == 0)", "", "no condition; expected exists (...), ~exists (...) or forall (...)"},
       }) {
    SCOPED_TRACE(to);
    const std::string got = litmus_error_of(litmus_with(kLitmusMp, from, to));
    EXPECT_NE(got.find(says), std::string::npos) << got;
  }
  // A loop is refused: the model does not unroll it.
  const std::string loop = litmus_with(kLitmusMp, "| ld.weak r1, x           ;", "| ld.weak r1, x           ;\n               | L:   ;\n               | goto L ;");
  EXPECT_NE(litmus_error_of(loop).find("is a loop"), std::string::npos) << litmus_error_of(loop);
}
