#pragma once
// Where the time goes: a cost model whose every prediction is a sum of named terms, each term
// built from primitives (an L2 round trip, a fence, a queue of same-address atomics, a poll) that
// the GPU measures in the same run as the bench the model explains (core/cost/probe.hpp). The
// formulas follow how each algorithm works: they count the atomics, fences and polls on its
// critical path; none is fitted to the figure it predicts.
//
//   Primitives p;                          // filled by cost::measure() on a GPU, empty on the model
//   p.set({"rt-atomic", ""}, {154.5, 155.0, 154.8});
//   Prediction own;
//   own.add("poll", "poll", p.ns({"poll-relaxed", "132"}), "poll-relaxed(132)");
//   own.ns();                              // the sum; NaN while any term lacks its primitive
//
// Pure C++ (no CUDA): the model library builds and is tested without a GPU. Each lesson keeps its
// own formulas (lockfree-barrier's, lock's and cg-reduce's bench.cpp or cost.cpp, in their topic
// slices); compare.hpp puts a model beside a sweep.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/cost/probe.hpp"

namespace cudasync::cost {

// One primitive: what it is and where it was measured ("" for one thread alone, "132" for 132
// blocks, "132x128" for <<<132, 128>>>, "2-24" for an input of 2^24 elements).
struct Key {
  std::string id;  // kebab-case: rt-atomic, fence-sc, queue-atomic, poll-relaxed, ...
  std::string at;
  bool operator<(const Key& o) const { return id != o.id ? id < o.id : at < o.at; }
  bool operator==(const Key& o) const { return id == o.id && at == o.at; }
};

// One primitive the model needs, with what to run on the GPU to measure it.
struct Need {
  Key key;
  std::string title;  // "dependent atomicAdd, one thread"
  ProbeSpec spec;
};

// The measured primitives: samples by key; a value is their median.
class Primitives {
 public:
  void set(const Key& k, std::vector<double> samples);
  void skip(const Key& k, std::string why);  // measured nowhere: the probe could not run here
  bool has(const Key& k) const;
  // The median in ns, or NaN when not measured (so every term built on it is NaN too).
  double ns(const Key& k) const;
  const std::vector<double>* samples(const Key& k) const;  // nullptr when not measured
  std::string skipped(const Key& k) const;                 // why not, or ""
  bool empty() const { return samples_.empty(); }

 private:
  std::map<Key, std::vector<double>> samples_;
  std::map<Key, std::string> skipped_;
};

// One term of a prediction: what it is, how much, and how it is computed from primitives.
struct Term {
  std::string id;       // kebab-case, the column of the terms table: sync, fence, queue, poll, ...
  std::string title;
  double ns = 0.0;      // NaN while a primitive is missing
  std::string formula;  // "2 x sync(256)", "queue-atomic(132) - rt-atomic"
};

struct Prediction {
  std::vector<Term> terms;
  Prediction& add(std::string id, std::string title, double ns, std::string formula);
  double ns() const;  // the sum of the terms; NaN when any is NaN or there are none
  const Term* term(const std::string& id) const;
  std::string formula() const;  // "sync + fence + queue + poll"
  // Each term with how it is computed: "sync = 2 x sync(256) + fence = fence-rel(132) + ...".
  std::string terms_text() const;
};

// max() that keeps a NaN (std::max(NaN, x) depends on the order of its arguments).
inline double nan_max(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : (a > b ? a : b); }
// max(0, x), keeping NaN: what is left of a cost once another hides part of it.
inline double excess(double x) { return std::isnan(x) ? NAN : (x > 0.0 ? x : 0.0); }

// Needs in order, each key once (a later duplicate is dropped).
void add_need(std::vector<Need>& needs, Need n);

// "132x128" for <<<132, 128>>>, "132" for 132 blocks of one poller each.
std::string at_grid(int blocks, int threads);
std::string at_blocks(int blocks);

// Every need measured on the GPU (`measure` runs one probe: gpu_probe in core/cost/cost_gpu.hpp
// on a GPU); on the model (gpu false) nothing runs and every primitive stays NaN.
template <typename Measure>
Primitives measure_all(const std::vector<Need>& needs, bool gpu, Measure measure) {
  Primitives p;
  if (!gpu) return p;
  for (const Need& n : needs) {
    ProbeResult r = measure(n.spec);
    if (!r.skipped.empty()) p.skip(n.key, r.skipped);
    else p.set(n.key, std::move(r.ns));
  }
  return p;
}

}  // namespace cudasync::cost
