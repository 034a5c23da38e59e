#pragma once
// A relation over at most 64 events, as the memory models build theirs: row[a] has bit b when
// a -> b. Union (|), intersection (&), sequence (seq: a ; b), transitive closure (plus), identity,
// irreflexive and acyclic. core/litmus's checker and threadfence's litmus model both use it.
#include <cstdint>
#include <vector>

namespace cudasync::litmus {

struct Rel {
  std::vector<std::uint64_t> row;
  explicit Rel(int n = 0) : row(static_cast<std::size_t>(n), 0) {}
  int n() const { return static_cast<int>(row.size()); }
  bool has(int a, int b) const { return ((row[static_cast<std::size_t>(a)] >> b) & 1u) != 0; }
  void add(int a, int b) { row[static_cast<std::size_t>(a)] |= std::uint64_t{1} << b; }
  bool operator==(const Rel& o) const { return row == o.row; }
  bool operator<(const Rel& o) const { return row < o.row; }
};

inline Rel operator|(const Rel& a, const Rel& b) {
  Rel r(a.n());
  for (std::size_t i = 0; i < r.row.size(); ++i) r.row[i] = a.row[i] | b.row[i];
  return r;
}
inline Rel operator&(const Rel& a, const Rel& b) {
  Rel r(a.n());
  for (std::size_t i = 0; i < r.row.size(); ++i) r.row[i] = a.row[i] & b.row[i];
  return r;
}
inline Rel seq(const Rel& a, const Rel& b) {  // a ; b
  Rel r(a.n());
  for (int i = 0; i < a.n(); ++i)
    for (int j = 0; j < a.n(); ++j)
      if (a.has(i, j)) r.row[static_cast<std::size_t>(i)] |= b.row[static_cast<std::size_t>(j)];
  return r;
}
inline Rel plus(Rel r) {  // transitive closure
  for (int k = 0; k < r.n(); ++k)
    for (int i = 0; i < r.n(); ++i)
      if (r.has(i, k)) r.row[static_cast<std::size_t>(i)] |= r.row[static_cast<std::size_t>(k)];
  return r;
}
inline Rel identity(int n) {
  Rel r(n);
  for (int i = 0; i < n; ++i) r.add(i, i);
  return r;
}
inline bool irreflexive(const Rel& r) {
  for (int i = 0; i < r.n(); ++i)
    if (r.has(i, i)) return false;
  return true;
}
inline bool acyclic(const Rel& r) { return irreflexive(plus(r)); }

}  // namespace cudasync::litmus
