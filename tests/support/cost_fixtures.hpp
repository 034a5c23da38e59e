#pragma once
// A cost model's inputs without a GPU, for the tests of the lessons' formulas (lock, lockfree-barrier,
// cg-reduce keep theirs in their benches): each test says what a plausible GPU measures for each
// primitive, and these give the model those figures.
#include <functional>
#include <string>
#include <vector>

#include "core/cost/model.hpp"

namespace cudasync::test {

using CostValue = std::function<double(const cost::Key&)>;

// Every need measured as `value(key)`, three samples around it (the median is the value).
cost::Primitives measured(const std::vector<cost::Need>& needs, const CostValue& value);

// `base` with one primitive (by id) `factor` times as slow.
CostValue slower(CostValue base, const std::string& id, double factor);

double sum_of_terms(const cost::Prediction& p);

// A plausible GPU: 200 ns round trips, 300 ns fences (a fence after a store about 330), a 10 ns
// acquire, 1.5 ns per same-address atomic beyond the first; an arrive-then-poll round is a fence,
// the queue on each word and a poll; a lock's handoff 500 ns and 0.5 ns more per waiting thread.
// (the figures lock's and lockfree-barrier's formulas read; cg-reduce keeps its own).
double plausible(const cost::Key& k);

}  // namespace cudasync::test
