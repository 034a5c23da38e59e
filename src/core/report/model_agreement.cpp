// The check every lesson makes of a GPU result, titled in the run's language. Apart from report.cpp
// so that the build's manifest check, which links report.cpp, needs no word catalogs.
#include "core/report/report.hpp"
#include "core/words/words.hpp"

namespace cudasync::report {

Check model_agreement(std::string id, const std::string& what, bool passed, std::string detail) {
  return {std::move(id), words::core("check.gpu-agrees", {{"what", what}}), passed, std::move(detail)};
}

RowMark Section::agreement(std::string check_id, const std::string& what, bool passed, std::string detail) {
  checks.push_back(model_agreement(std::move(check_id), what, passed, std::move(detail)));
  return passed ? RowMark::none : RowMark::mismatch;
}

}  // namespace cudasync::report
