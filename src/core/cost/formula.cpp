#include "core/cost/formula.hpp"

namespace cudasync::cost {

std::string call(const Need& n) { return n.key.id + (n.key.at.empty() ? "" : "(" + n.key.at + ")"); }

FormulaTerm scaled(std::string id, std::string title, const Need& n, double scale, const std::string& before,
                   const std::string& after) {
  return {std::move(id), std::move(title), before + call(n) + after, {n},
          [n, scale](const Primitives& p) { return scale * p.ns(n.key); }};
}

FormulaTerm plain(std::string id, std::string title, const Need& n, int times) {
  return scaled(std::move(id), std::move(title), n, times, times == 1 ? "" : std::to_string(times) + " x ", "");
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
