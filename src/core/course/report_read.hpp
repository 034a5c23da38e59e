#pragma once
// Reading an answer out of a lesson's report, by ids (as the tests do): a missing section, fact,
// table, row or column is a bug of the exercise's row (std::logic_error naming it), never a wrong
// answer. Nothing here reads a sentence: the manifest's reads (answer_read.hpp) name ids and
// numbers, and what a lesson says only in words it adds to its report as data.
//
//   const report::Report r = runner.run("warp-primitives", {"--part", "ballot", "--predicate", "lane<5"});
//   const std::int64_t mask = course::as_int(course::result_fact(r, "ballot", "result", runner.context()));
#include <cstdint>
#include <string>
#include <string_view>

#include "core/report/report.hpp"
#include "core/run_context.hpp"

namespace cudasync::course {

const report::Section& section(const report::Report& r, std::string_view id);
const report::Value& fact(const report::Report& r, std::string_view section_id, std::string_view fact_id);
const report::Table& table(const report::Report& r, std::string_view section_id, std::string_view table_id);
const report::Check& check(const report::Report& r, std::string_view section_id, std::string_view check_id);

// "gpu" when the run had a GPU and the table has that column, else "model": where a lesson puts
// what the hardware did beside what the model says.
std::string result_column(const report::Table& t, const RunContext& ctx);
// The fact "<stem>-gpu" when the run had a GPU and the section has it, else "<stem>-model".
const report::Value& result_fact(const report::Report& r, std::string_view section_id, const std::string& stem,
                                 const RunContext& ctx);

std::int64_t as_int(const report::Value& v);       // an integer, or a real that is whole
double as_double(const report::Value& v);          // any number
bool has_number(const report::Value& v);           // an integer or a real (not NeedsGpu, Undefined)

// Whether a text of space-separated words holds `word`: has_word("00 01 11", "01") is true,
// has_word("00 01 11", "1") false.
bool has_word(std::string_view words, std::string_view word);

}  // namespace cudasync::course
