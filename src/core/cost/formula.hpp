#pragma once
// One term of a model's formula with what it reads: the primitives it needs and how its ns follow
// from them. The lessons' models (lockfree-barrier's cost.cpp, lock's bench.cpp) write each
// prediction as a list of these; the needs are the union of what the terms read, so a model can
// never ask the GPU for a primitive it does not use, nor use one it did not ask for.
//
//   const Need f = prim::fence_under(Op::fence_sc, 132);
//   FormulaTerm fence = plain("fence", "fences", f, 2);        // "2 x fence-sc(132)"
//   FormulaTerm c = contention("contention", title, whole, {fence, queue});
//                                                              // "whole(132) - (fence + queue)"
#include <functional>
#include <string>
#include <vector>

#include "core/cost/model.hpp"

namespace cudasync::cost {

struct FormulaTerm {
  std::string id, title, formula;
  std::vector<Need> reads;
  std::function<double(const Primitives&)> ns;
};

// How a formula names a primitive: "fence-sc(132)", "rt-atomic".
std::string call(const Need& n);

// `scale` x one primitive, the formula written before + "load(132x1)" + after ("2 x ", " / 32").
FormulaTerm scaled(std::string id, std::string title, const Need& n, double scale, const std::string& before,
                   const std::string& after);
// `times` x one primitive: "2 x fence-sc(132)".
FormulaTerm plain(std::string id, std::string title, const Need& n, int times = 1);

// What a protocol measured whole costs beyond its parts measured apart (negative: they overlap),
// the parts' ids in the formula: "handoff-cas(132x1) - (take + fence + release)".
FormulaTerm contention(std::string title, const Need& whole, const std::vector<FormulaTerm>& parts);

// The parts, then the contention: the terms of a protocol whose whole is `whole`.
std::vector<FormulaTerm> with_contention(std::vector<FormulaTerm> parts, const Need& whole, std::string title);

// The union of what the terms read, in order.
std::vector<Need> needs_of(const std::vector<FormulaTerm>& terms);
// Each term evaluated on `p`.
Prediction predict(const std::vector<FormulaTerm>& terms, const Primitives& p);

}  // namespace cudasync::cost
