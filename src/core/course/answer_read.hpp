#pragma once
// A manifest row's answer, computed now: run the lesson with the row's arguments and read the
// answer, and the values its why names, out of the report by ids (core/course/manifest.hpp gives
// the reads). A read that finds no such section, table, row or column is a bug of the row
// (std::logic_error naming it); a cell only a GPU gives, on the model, is waived (exit 77).
//
//   row {"run": ["--part", "ballot", "--predicate", "lane<5"],
//        "read": {"fact": "ballot/result", "result": true}, "answer": "mask"}
//   -> runs `warp-primitives --part ballot --predicate lane<5`, reads the fact result-gpu (with a
//      GPU) or result-model, and answers "0x0000001f".
#include <string>

#include "core/course/exercise.hpp"
#include "core/course/manifest.hpp"

namespace cudasync::course {

// The value `read` gives in `r`, as a student types it (before the format's canonical form).
std::string read_value(const AnswerRead& read, const report::Report& r, const RunContext& ctx);

// The compute of a row that reads its answer: runs `lesson` with the row's arguments through the
// runner, reads the answer in the row's format and the values its why names.
Answer read_answer(const ManifestExercise& row, const std::string& lesson, LessonRunner& runner);

}  // namespace cudasync::course
