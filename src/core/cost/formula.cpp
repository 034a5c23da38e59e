#include "core/cost/formula.hpp"

namespace cudasync::cost {

std::string call(const Need& n) { return n.key.id + (n.key.at.empty() ? "" : "(" + n.key.at + ")"); }

FormulaTerm plain(std::string id, std::string title, const Need& n, int times) {
  const std::string f = (times == 1 ? "" : std::to_string(times) + " x ") + call(n);
  return {std::move(id), std::move(title), f, {n}, [n, times](const Primitives& p) { return times * p.ns(n.key); }};
}

FormulaTerm contention(std::string title, const Need& whole, const std::vector<FormulaTerm>& parts) {
  std::string sum;
  std::vector<Need> reads{whole};
  for (const FormulaTerm& t : parts) {
    sum += (sum.empty() ? "" : " + ") + t.id;
    reads.insert(reads.end(), t.reads.begin(), t.reads.end());
  }
  return {"contention", std::move(title), call(whole) + " - (" + sum + ")", reads, [whole, parts](const Primitives& p) {
            double apart = 0;
            for (const FormulaTerm& t : parts) apart += t.ns(p);
            return p.ns(whole.key) - apart;
          }};
}

std::vector<FormulaTerm> with_contention(std::vector<FormulaTerm> parts, const Need& whole, std::string title) {
  FormulaTerm c = contention(std::move(title), whole, parts);
  parts.push_back(std::move(c));
  return parts;
}

std::vector<Need> needs_of(const std::vector<FormulaTerm>& terms) {
  std::vector<Need> n;
  for (const FormulaTerm& t : terms)
    for (const Need& r : t.reads) add_need(n, r);
  return n;
}

Prediction predict(const std::vector<FormulaTerm>& terms, const Primitives& p) {
  Prediction out;
  for (const FormulaTerm& t : terms) out.add(t.id, t.title, t.ns(p), t.formula);
  return out;
}

}  // namespace cudasync::cost
