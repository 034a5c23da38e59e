#include "core/course/report_read.hpp"

#include <cmath>
#include <stdexcept>

namespace cudasync::course {

namespace {

[[noreturn]] void missing(const std::string& what) { throw std::logic_error("course: the report has no " + what); }

}  // namespace

const report::Section& section(const report::Report& r, std::string_view id) {
  const report::Section* s = r.section(id);
  if (s == nullptr) {
    std::string present, waived;
    for (const auto& x : r.sections) present += (present.empty() ? "" : ", ") + x.id;
    for (const auto& w : r.waived) waived += (waived.empty() ? "" : "; ") + w.part + ": " + w.reason;
    missing("section '" + std::string(id) + "' (it has " + (present.empty() ? "none" : present) +
            (waived.empty() ? "" : "; waived: " + waived) + ")");
  }
  return *s;
}

const report::Value& fact(const report::Report& r, std::string_view section_id, std::string_view fact_id) {
  for (const auto& f : section(r, section_id).facts)
    if (f.id == fact_id) return f.value;
  missing("fact '" + std::string(section_id) + "/" + std::string(fact_id) + "'");
}

const report::Table& table(const report::Report& r, std::string_view section_id, std::string_view table_id) {
  for (const auto& t : section(r, section_id).tables)
    if (t.id == table_id) return t;
  missing("table '" + std::string(section_id) + "/" + std::string(table_id) + "'");
}

const report::Check& check(const report::Report& r, std::string_view section_id, std::string_view check_id) {
  for (const auto& c : section(r, section_id).checks)
    if (c.id == check_id) return c;
  missing("check '" + std::string(section_id) + "/" + std::string(check_id) + "'");
}

std::string result_column(const report::Table& t, const RunContext& ctx) {
  if (ctx.gpu)
    for (const auto& c : t.columns)
      if (c.key == "gpu") return "gpu";
  return "model";
}

const report::Value& result_fact(const report::Report& r, std::string_view section_id, const std::string& stem,
                                 const RunContext& ctx) {
  if (ctx.gpu)
    for (const auto& f : section(r, section_id).facts)
      if (f.id == stem + "-gpu") return f.value;
  return fact(r, section_id, stem + "-model");
}

bool has_number(const report::Value& v) {
  return std::holds_alternative<std::int64_t>(v) || std::holds_alternative<double>(v);
}

std::int64_t as_int(const report::Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v))
    if (std::floor(*d) == *d && std::fabs(*d) < 9.0e18) return static_cast<std::int64_t>(*d);
  throw std::logic_error("course: a value that is not a whole number");
}

double as_double(const report::Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  throw std::logic_error("course: a value that is not a number");
}

bool has_word(std::string_view words, std::string_view word) {
  const std::string padded = " " + std::string(words) + " ";
  return padded.find(" " + std::string(word) + " ") != std::string::npos;
}

}  // namespace cudasync::course
