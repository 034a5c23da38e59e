#pragma once
// Reads a litmus test in the PTX subset of Dat3M's .litmus format (docs/litmus.md has the grammar):
// a `PTX NAME` line, optional quoted lines, the initial values `{ x=0; P1:r0=0; }`, a row of
// threads `P0@cta 0,gpu 0 | P1@host ;`, rows of instructions one cell per thread, and the
// condition `exists (...)`, `~exists (...)` or `forall (...)`.
//
// A bad file is a LitmusSyntaxError: "mp.litmus:6:12: st.release needs a scope; expected .cta,
// .gpu or .sys" (file, line, column, what is wrong, what was expected).
#include <stdexcept>
#include <string>

#include "core/litmus/litmus_test.hpp"

namespace cudasync::litmus {

struct LitmusSyntaxError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `file` names the text in messages.
LitmusTest parse_litmus(const std::string& text, const std::string& file);

}  // namespace cudasync::litmus
