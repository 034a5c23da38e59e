#include "core/course/answer_read.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "core/course/answer_format.hpp"
#include "core/course/report_read.hpp"
#include "core/errors.hpp"

namespace cudasync::course {

namespace {

// A cell as a student would type it: whole numbers as digits, texts as they are.
std::string typed(const report::Value& v, const std::string& where) {
  if (std::holds_alternative<report::NeedsGpu>(v))
    throw WaivedError(where + ": only a GPU gives this value, and this run has none");
  if (std::holds_alternative<report::Undefined>(v)) throw std::logic_error(where + ": the value is undefined");
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "yes" : "no";
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* d = std::get_if<double>(&v)) {
    if (std::floor(*d) == *d && std::fabs(*d) < 9.0e15) return std::to_string(static_cast<long long>(*d));
    std::ostringstream out;
    out << *d;
    return out.str();
  }
  return std::to_string(std::get<std::int64_t>(v));
}

report::RowMark mark_named(const std::string& name) {
  for (report::RowMark m : {report::RowMark::inactive, report::RowMark::kept_own, report::RowMark::undefined_src,
                            report::RowMark::mismatch})
    if (name == report::to_string(m)) return m;
  throw std::logic_error("no row mark '" + name + "'");
}

std::size_t row_of(const AnswerRead& read, const report::Table& t) {
  if (read.row_index) {
    if (*read.row_index >= t.rows.size())
      throw std::logic_error("table " + t.id + " has no row " + std::to_string(*read.row_index));
    return *read.row_index;
  }
  if (read.row_int) return row_where(t, read.row_column, static_cast<std::int64_t>(*read.row_int));
  return row_where(t, read.row_column, read.row_text);
}

// The rows of `t` the read selects: all, those with its mark, or those whose column equals its
// where's value.
std::vector<std::size_t> rows_selected(const AnswerRead& read, const report::Table& t, const report::Report& r,
                                       const RunContext& ctx) {
  std::vector<std::size_t> rows;
  if (!read.where) {  // every row, or those with the mark
    for (std::size_t i = 0; i < t.rows.size(); ++i)
      if (read.marked.empty() || t.rows[i].mark == mark_named(read.marked)) rows.push_back(i);
    return rows;
  }
  const std::string want = read_value(*read.where, r, ctx);
  for (std::size_t i = 0; i < t.rows.size(); ++i)
    if (typed(t.cell(i, read.where_column), t.id + "." + read.where_column) == want) rows.push_back(i);
  return rows;
}

std::string value_of(const AnswerRead& read, const report::Report& r, const RunContext& ctx) {
  const std::string where = read.section + "/" + read.name;
  switch (read.what) {
    case AnswerRead::What::fact:
      return typed(read.result ? result_fact(r, read.section, read.name, ctx) : fact(r, read.section, read.name), where);
    case AnswerRead::What::cell: {
      const report::Table& t = table(r, read.section, read.name);
      const std::size_t row = row_of(read, t);
      std::string out;
      for (const std::string& c : read.columns) {
        const std::string column = c == "@result"                      ? result_column(t, ctx)
                                   : ctx.gpu && !read.gpu_column.empty() ? read.gpu_column
                                                                         : c;
        out += (out.empty() ? "" : ", ") + typed(t.cell(row, column), where + "." + column);
      }
      return out;
    }
    case AnswerRead::What::lanes: {
      const report::Table& t = table(r, read.section, read.name);
      std::vector<long long> lanes;
      for (std::size_t i : rows_selected(read, t, r, ctx)) lanes.push_back(as_int(t.cell(i, read.key)));
      return lanes_text(lanes);
    }
    case AnswerRead::What::count: {
      const report::Table& t = table(r, read.section, read.name);
      return std::to_string(rows_selected(read, t, r, ctx).size());
    }
    case AnswerRead::What::check: {
      const report::Check& c = check(r, read.section, read.name);
      return read.detail ? c.detail : c.passed ? "yes" : "no";
    }
    case AnswerRead::What::headers: {
      const report::Table& t = table(r, read.section, read.name);
      std::string titles;
      std::size_t n = 0;
      for (const auto& c : t.columns)
        if (c.key.rfind(read.prefix, 0) == 0) {
          titles += (titles.empty() ? "" : ", ") + c.title;
          ++n;
        }
      return read.titles ? titles : std::to_string(n);
    }
  }
  return "";
}

}  // namespace

std::string read_value(const AnswerRead& read, const report::Report& r, const RunContext& ctx) {
  std::string v = value_of(read, r, ctx);
  if (read.has) v = has_word(v, *read.has) ? "yes" : "no";
  if (!read.map.empty()) {
    const auto to = read.map.find(v);
    if (to == read.map.end()) throw std::logic_error(read.section + "/" + read.name + ": no map for '" + v + "'");
    v = to->second;
  }
  return v;
}

Answer read_answer(const ManifestExercise& row, const std::string& lesson, LessonRunner& runner) {
  const report::Report rep = runner.run(lesson, row.run);
  const std::string value = read_value(*row.read, rep, runner.context());
  const auto canon = canonical(row.exercise.format, value);
  if (!canon)
    throw std::logic_error("course: " + lesson + ": exercise " + row.exercise.id + " read '" + value +
                           "', which is not " + accepted(row.exercise.format));
  Answer a;
  a.value = *canon;
  for (const auto& [name, read] : row.values) a.values.emplace_back(name, read_value(read, rep, runner.context()));
  return a;
}

}  // namespace cudasync::course
