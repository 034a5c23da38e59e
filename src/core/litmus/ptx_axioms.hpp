#pragma once
// The PTX memory model judging a litmus test: every candidate execution (which write each read
// reads from, the coherence order of each location's writes, the order of the fence.sc fences)
// is checked against the axioms of the PTX ISA's memory consistency model (PTX ISA 6.0 and later,
// "Memory Consistency Model"; Lustig, Sahasrabuddhe and Giroux, ASPLOS 2019; the relations as
// Dat3M's cat/ptx-v6.0.cat writes them): Coherence, FenceSC, Atomicity, No-Thin-Air,
// SC-per-Location and Causality. Generic proxy only; forward branches; at most 64 events.
//
//   judge(parse_litmus(mp_text, "mp.litmus")).reachable   // false: the weak outcome is forbidden
//
// For an outcome no consistent execution gives: the axioms that reject the candidates that give it,
// and one candidate's cycle, edge by edge. For one that some execution gives: that execution (its
// reads-from and coherence order), the witness.
#include <stdexcept>
#include <string>
#include <vector>

#include "core/litmus/litmus_test.hpp"

namespace cudasync::litmus {

// One step of a cycle: from event `from` to event `to` by relation `rel` ("po", "rf", "fr", "co",
// "po-loc", "obs", "sync", "fence-sc", "bar", "cause").
struct Step {
  int from = 0, to = 0;
  std::string rel;
};

struct EventText {
  std::string id;    // "a", "b", ... in the order of the threads and their instructions
  int thread = 0;
  std::string text;  // "st.release.gpu y, 1" (an atom's read and write: "atom... (read)", "(write)")
  int line = 0;
};

struct Verdict {
  // The outcome in question: the condition for exists and ~exists, its negation for forall.
  bool reachable = false;  // some execution that every axiom accepts gives it
  bool holds = false;      // the condition as stated holds (exists: reachable; ~exists, forall: not)
  long long candidates = 0;        // candidate executions checked
  long long consistent = 0;        // of which every axiom accepts
  long long thin_air = 0;          // rf choices whose values would come from nowhere (No-Thin-Air)
  long long target_candidates = 0; // candidates that give the outcome
  // Forbidden outcome: per axiom, how many of the candidates that give it the axiom rejects.
  std::vector<std::pair<std::string, long long>> rejected_by;
  std::string axiom;               // the axiom that rejects every one of them, if one does
  std::vector<EventText> events;   // of the example (the witness, or the rejected candidate)
  std::vector<Step> cycle;         // forbidden: the example's cycle or violation, step by step
  std::string example_axiom;       // the axiom the cycle breaks
  // The example's reads-from, reader and writer ({"d", "b"}; the writer "" for the initial value),
  // and its coherence order ({"b", "e"}: b before e), by event letter: the command words them.
  std::vector<std::pair<std::string, std::string>> rf;
  std::vector<std::pair<std::string, std::string>> co;
  std::vector<std::string> final_state;  // the example's registers and memory: "P1:r0 = 1"
};

struct ModelLimitError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws ModelLimitError where the test is beyond the model (more than 64 events, more than
// kMaxCandidates candidate executions).
Verdict judge(const LitmusTest& test);

inline constexpr long long kMaxCandidates = 2'000'000;

}  // namespace cudasync::litmus
