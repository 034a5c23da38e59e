#include "core/cost/model.hpp"

#include <algorithm>

#include "core/report/report.hpp"

namespace cudasync::cost {

void Primitives::set(const Key& k, std::vector<double> samples) {
  skipped_.erase(k);
  samples_[k] = std::move(samples);
}

void Primitives::skip(const Key& k, std::string why) {
  samples_.erase(k);
  skipped_[k] = std::move(why);
}

bool Primitives::has(const Key& k) const {
  const auto it = samples_.find(k);
  return it != samples_.end() && !it->second.empty();
}

double Primitives::ns(const Key& k) const { return has(k) ? report::median(samples_.at(k)) : NAN; }

const std::vector<double>* Primitives::samples(const Key& k) const {
  const auto it = samples_.find(k);
  return it == samples_.end() ? nullptr : &it->second;
}

std::string Primitives::skipped(const Key& k) const {
  const auto it = skipped_.find(k);
  return it == skipped_.end() ? "" : it->second;
}

Prediction& Prediction::add(std::string id, std::string title, double ns, std::string formula) {
  terms.push_back({std::move(id), std::move(title), ns, std::move(formula)});
  return *this;
}

double Prediction::ns() const {
  if (terms.empty()) return NAN;
  double sum = 0.0;
  for (const Term& t : terms) sum += t.ns;  // NaN stays NaN
  return sum;
}

const Term* Prediction::term(const std::string& id) const {
  for (const Term& t : terms)
    if (t.id == id) return &t;
  return nullptr;
}

std::string Prediction::formula() const {
  std::string f;
  for (const Term& t : terms) f += (f.empty() ? "" : " + ") + t.id;
  return f;
}

std::string Prediction::terms_text() const {
  std::string f;
  for (const Term& t : terms) f += (f.empty() ? "" : " + ") + t.id + " = " + t.formula;
  return f;
}

void add_need(std::vector<Need>& needs, Need n) {
  if (std::none_of(needs.begin(), needs.end(), [&](const Need& m) { return m.key == n.key; }))
    needs.push_back(std::move(n));
}

std::string at_grid(int blocks, int threads) { return std::to_string(blocks) + "x" + std::to_string(threads); }
std::string at_blocks(int blocks) { return std::to_string(blocks); }

}  // namespace cudasync::cost
