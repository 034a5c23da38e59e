#pragma once
// Reading an answer out of a lesson's report, by ids (as the tests do): a missing section, fact,
// table, row or column is a bug of the exercise's row (std::logic_error naming it), never a wrong
// answer.
//
//   const report::Report r = runner.run("warp-primitives", {"--part", "shfl-xor", "--lane-mask", "3"});
//   const report::Table& t = course::table(r, "shfl-xor", "lanes");
//   const std::size_t row = course::row_where(t, "thread", 5);
//   const std::int64_t got = course::as_int(t.cell(row, course::result_column(t, runner.context())));
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/report/report.hpp"
#include "core/run_context.hpp"

namespace cudasync::course {

const report::Section& section(const report::Report& r, std::string_view id);
const report::Value& fact(const report::Report& r, std::string_view section_id, std::string_view fact_id);
const report::Table& table(const report::Report& r, std::string_view section_id, std::string_view table_id);
const report::Check& check(const report::Report& r, std::string_view section_id, std::string_view check_id);
// The first row whose `column` holds `value` (an integer, or a text).
std::size_t row_where(const report::Table& t, std::string_view column, std::int64_t value);
std::size_t row_where(const report::Table& t, std::string_view column, std::string_view value);
// The first row whose `column` text starts with `prefix`.
std::size_t row_starting(const report::Table& t, std::string_view column, std::string_view prefix);

// "gpu" when the run had a GPU and the table has that column, else "model": where a lesson puts
// what the hardware did beside what the model says.
std::string result_column(const report::Table& t, const RunContext& ctx);
// The fact "<stem>-gpu" when the run had a GPU and the section has it, else "<stem>-model".
const report::Value& result_fact(const report::Report& r, std::string_view section_id, const std::string& stem,
                                 const RunContext& ctx);
// The lanes (the `key` column's values) of the rows marked `mark`.
std::vector<long long> rows_marked(const report::Table& t, report::RowMark mark, std::string_view key);

std::int64_t as_int(const report::Value& v);       // an integer, or a real that is whole
double as_double(const report::Value& v);          // any number
std::string as_text(const report::Value& v);       // a text (logic_error for anything else)
bool has_number(const report::Value& v);           // an integer or a real (not NeedsGpu, Undefined)

// Whether a text of space-separated words holds `word`: has_word("00 01 11", "01") is true,
// has_word("00 01 11", "1") false.
bool has_word(std::string_view words, std::string_view word);

// The integers in a text, in order: "completes in 27 steps, count 6 of 6" -> {27, 6, 6}.
std::vector<std::int64_t> numbers_in(std::string_view text);
// The integer after `word` in `text`: number_after("count 4 of 6", "count") == 4; nullopt if none.
std::optional<std::int64_t> number_after(std::string_view text, std::string_view word);

}  // namespace cudasync::course
