#include "core/report/observation.hpp"

#include "core/report/text_format.hpp"

namespace cudasync::report {

RowMark Agreement::note(std::int64_t row, bool agrees, RowMark mark) {
  if (!gpu_) return mark;
  ++compared_;
  if (agrees) return mark;
  differing_.push_back(row);
  return RowMark::mismatch;
}

std::string Agreement::differing_list() const {
  std::vector<int> rows(differing_.begin(), differing_.end());
  return list_of(rows);
}

void Agreement::check(Section& s, std::string id, const std::string& what, std::string detail) const {
  if (gpu_) s.agreement(std::move(id), what, passed(), std::move(detail));
}

}  // namespace cudasync::report
