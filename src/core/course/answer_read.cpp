#include "core/course/answer_read.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "core/course/answer_format.hpp"
#include "core/course/report_read.hpp"
#include "core/errors.hpp"
#include "core/report/text_format.hpp"

namespace cudasync::course {

namespace {

// A cell as a student would type it: whole numbers as digits, reals in the fewest digits that give
// the same value back (524870.5, 1.3931285186047535e-06), texts as they are.
std::string typed(const report::Value& v, const std::string& where) {
  if (std::holds_alternative<report::NeedsGpu>(v))
    throw WaivedError(where + ": only a GPU gives this value, and this run has none");
  if (std::holds_alternative<report::Undefined>(v)) throw std::logic_error(where + ": the value is undefined");
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "yes" : "no";
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* d = std::get_if<double>(&v)) {
    if (std::floor(*d) == *d && std::fabs(*d) < 9.0e15) return std::to_string(static_cast<long long>(*d));
    char digits[32];
    const auto end = std::to_chars(digits, digits + sizeof digits, *d).ptr;
    return std::string(digits, end);
  }
  return std::to_string(std::get<std::int64_t>(v));
}

report::RowMark mark_named(const std::string& name) {
  for (report::RowMark m : {report::RowMark::inactive, report::RowMark::kept_own, report::RowMark::undefined_src,
                            report::RowMark::mismatch})
    if (name == report::to_string(m)) return m;
  throw std::logic_error("no row mark '" + name + "'");
}

bool holds(const report::Table& t, std::size_t row, const RowMatch& m) {
  const report::Value& v = t.cell(row, m.column);
  if (m.integer) return has_number(v) && as_double(v) == static_cast<double>(*m.integer);
  const auto* s = std::get_if<std::string>(&v);
  return s != nullptr && *s == m.text;
}

std::size_t row_of(const AnswerRead& read, const report::Table& t) {
  if (read.row_index) {
    if (*read.row_index >= t.rows.size())
      throw std::logic_error("table " + t.id + " has no row " + std::to_string(*read.row_index));
    return *read.row_index;
  }
  for (std::size_t i = 0; i < t.rows.size(); ++i)
    if (std::all_of(read.row.begin(), read.row.end(), [&](const RowMatch& m) { return holds(t, i, m); })) return i;
  std::string named;
  for (const RowMatch& m : read.row)
    named += (named.empty() ? "" : " and ") + m.column + " = " + (m.integer ? std::to_string(*m.integer) : "'" + m.text + "'");
  throw std::logic_error("course: the report has no row with " + named + " in table '" + t.id + "'");
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

// One value the report holds, with the format it is shown in.
struct Held {
  const report::Value* value;
  report::Format format;
  std::string where;  // "section/fact" or "section/table.column", for messages
};

// The value as the read gives it: as the report shows it ("shown"), else as a student types it.
std::string given(const Held& h, bool shown) {
  if (shown && !std::holds_alternative<report::NeedsGpu>(*h.value)) return report::format_value(*h.value, h.format);
  return typed(*h.value, h.where);
}

Held fact_held(const AnswerRead& read, const report::Report& r, const RunContext& ctx) {
  const std::string stem = read.name;
  const report::Section& s = section(r, read.section);
  const report::Value& v = read.result ? result_fact(r, read.section, stem, ctx) : fact(r, read.section, stem);
  for (const auto& f : s.facts)  // the fact that holds it: result_fact chose the GPU's or the model's
    if (&f.value == &v) return {&v, f.format, read.section + "/" + stem};
  return {&v, report::Format::plain, read.section + "/" + stem};
}

Held cell_held(const report::Table& t, std::size_t row, const std::string& column, const std::string& where) {
  return {&t.cell(row, column), t.columns[t.column_index(column)].format, where + "." + column};
}

// The column a cell read takes: the run's result column, the GPU's where it names one, or its own.
std::string column_of(const AnswerRead& read, const std::string& c, const report::Table& t, const RunContext& ctx) {
  if (c == "@result") return result_column(t, ctx);
  return ctx.gpu && !read.gpu_column.empty() ? read.gpu_column : c;
}

// What a compare compares: a number as it is; a fact or one cell as the report holds it, so that
// two reals compare by value, not by their printed digits; any other read by its value.
report::Value operand(const AnswerRead& read, const report::Report& r, const RunContext& ctx) {
  const bool plain = !read.has && read.lacks.empty() && read.map.empty() && !read.shown;
  if (read.what == AnswerRead::What::number) return read.number;
  if (plain && read.what == AnswerRead::What::fact) return *fact_held(read, r, ctx).value;
  if (plain && read.what == AnswerRead::What::cell && read.columns.size() == 1) {
    const report::Table& t = table(r, read.section, read.name);
    return t.cell(row_of(read, t), column_of(read, read.columns.front(), t, ctx));
  }
  const std::string v = read_value(read, r, ctx);
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (!v.empty() && end == v.c_str() + v.size()) return d;
  return v;
}

// "less", "equal" or "greater": numbers by value, anything else by its typed text.
std::string compared(const report::Value& a, const report::Value& b, const std::string& where) {
  if (has_number(a) && has_number(b)) {
    const double x = as_double(a), y = as_double(b);
    return x < y ? "less" : x > y ? "greater" : "equal";
  }
  const int c = typed(a, where).compare(typed(b, where));
  return c < 0 ? "less" : c > 0 ? "greater" : "equal";
}

std::string value_of(const AnswerRead& read, const report::Report& r, const RunContext& ctx) {
  const std::string where = read.section + "/" + read.name;
  switch (read.what) {
    case AnswerRead::What::fact: return given(fact_held(read, r, ctx), read.shown);
    case AnswerRead::What::cell: {
      const report::Table& t = table(r, read.section, read.name);
      const std::size_t row = row_of(read, t);
      std::string out;
      for (const std::string& c : read.columns)
        out += (out.empty() ? "" : ", ") + given(cell_held(t, row, column_of(read, c, t, ctx), where), read.shown);
      return out;
    }
    case AnswerRead::What::cells: {
      std::vector<Held> held;
      for (const auto& [section_id, table_id] : read.tables) {
        const report::Table& t = table(r, section_id, table_id);
        for (std::size_t i = 0; i < t.rows.size(); ++i)
          held.push_back(cell_held(t, i, read.columns.front(), section_id + "/" + table_id));
      }
      if (read.same)
        return std::all_of(held.begin(), held.end(),
                           [&](const Held& h) { return compared(*h.value, *held.front().value, h.where) == "equal"; })
                   ? "yes"
                   : "no";
      std::string out;
      for (const Held& h : held) out += (out.empty() ? "" : ", ") + given(h, read.shown);
      return out;
    }
    case AnswerRead::What::compare:
      return compared(operand(*read.operands[0], r, ctx), operand(*read.operands[1], r, ctx), "compare");
    case AnswerRead::What::number: return typed(read.number, "number");
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

// The words of `lacks` that the value's words lack, joined by " "; "none" when it holds them all.
std::string lacking(const std::string& value, const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words)
    if (!has_word(value, w)) out += (out.empty() ? "" : " ") + w;
  return out.empty() ? "none" : out;
}

}  // namespace

std::string read_value(const AnswerRead& read, const report::Report& r, const RunContext& ctx) {
  std::string v = value_of(read, r, ctx);
  if (read.has) v = has_word(v, *read.has) ? "yes" : "no";
  if (!read.lacks.empty()) v = lacking(v, read.lacks);
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
