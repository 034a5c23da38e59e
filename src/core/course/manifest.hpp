#pragma once
// A lesson's course as data: lessons/<lesson>/lesson.json, embedded in the binary and checked when
// the build makes it (tools/manifest_check.cpp); its "order", the lesson's place in the course, is
// what the build lists the lessons by (cmake/lessons.cmake), and a teacher's own exercises in the same form
// from $CUDASYNC_COURSE_DIR/<lesson>.json, read at run time. An exercise is a row that names what
// answers it by id, not a function:
//
//   {"number": 2, "id": "shfl-xor-lane", "answer": "integer",
//    "run": ["--part", "shfl-xor", "--lane-mask", "3", "--width", "8"],
//    "read": {"cell": "shfl-xor/lanes", "row": {"thread": 5}, "column": "@result"},
//    "values": {"src": {"cell": "shfl-xor/lanes", "row": {"thread": 5}, "column": "source-lane"}},
//    "why": {"en": "lane 5 ^ 3 = lane {src}, which holds {answer}.", "zh": "..."}}
//
// runs `cudasync warp-primitives --part shfl-xor ...` and answers with thread 5's cell of the
// section shfl-xor's table lanes, in the GPU's column where the run had a GPU (column "@result"),
// else the model's. The reads (core/course/answer_read.hpp):
//   {"fact": "SECTION/FACT"}                      a fact; "result": true reads FACT-gpu or FACT-model
//   {"cell": "SECTION/TABLE", "row": N | {"COLUMN": VALUE, ...}, "column": "C" | "@result"}
//   {"cell": ..., "row": ..., "columns": ["C1", "C2"]}      the cells joined by ", "
//   {"cell": ..., "row": ..., "column": "C", "gpu_column": "G"}  G when the run had a GPU
//   {"count": "SECTION/TABLE"}                                 how many rows
//   {"check": "SECTION/CHECK"}                                 "yes" when it passed, else "no";
//                                                  with "detail": true, its detail
//   {"headers": "SECTION/TABLE", "prefix": "after-"}           how many columns' keys start so;
//                                                  with "titles": true, their titles joined by ", "
//   {"lanes": "SECTION/TABLE", "key": "C", "marked": "MARK"}  C of the rows with that mark
//   {"lanes": "SECTION/TABLE", "key": "C", "where": {"C2": READ}} C of the rows whose C2 is READ's
//   {"count": "SECTION/TABLE", "where": {"C2": READ}}          how many such rows
//   {"cells": "SECTION/TABLE" | ["S/T", ...], "column": "C"}   C of every row of the tables, joined
//                                                  by ", "; with "same": true, "yes" when they are
//                                                  all the same value, else "no"
//   {"compare": [READ, READ | NUMBER]}               "less", "equal" or "greater": the first against
//                                                  the second, numbers by value, texts by character
// A cell's row by its columns is the first that holds every value named.
// On any read "has": "WORD" gives "yes" when the value's space-separated words hold WORD, else
// "no"; "lacks": ["W1", "W2", ...] the listed words the value's words lack, joined by " " ("none"
// when it lacks none); "map": {"FROM": "TO", ...} the value given for another (a value it lacks is
// the row's bug); and on a fact, a cell or cells "shown": true, the value as the report shows it
// (its format: an error as 1.393e-06, a sum to every digit) instead of as typed.
// A read names data only: ids, numbers, and texts that are ids ("deadlocks", "two-blocks"), never a
// sentence a lesson shows, which changes with the language (--lang zh) and with the wording. What
// only a sentence says, the lesson adds to its report as a fact or a column of ids.
// A row whose answer only a lesson's code can give names it: "compute": "NAME" (the lesson's
// LessonCode); a kernel exercise: "kernel": true, "starter": "FILE.cu". Built-in rows take their
// question and hint from lessons/<lesson>/en.md and zh.md; a teacher's rows carry them:
// "question": {"en": ..., "zh": ...}, "hint": {...}, and no number (they follow the built-in ones).
// A built-in manifest also gives the lesson's place in the course ("order": 1, 2, ...) and what it
// uses beyond a GPU ("needs": [{"need": "cooperative-launch", "for": "need.cooperative-launch"}],
// "for" the key of the lesson catalog's sentence saying what uses it), which `cudasync doctor` reports.
//
// Plain C++: no CLI11, no CUDA (nlohmann/json only in the .cpp).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/course/exercise.hpp"

namespace cudasync::course {

// A manifest that is not valid: "lessons/lock/lesson.json:12: exercises[2].read: unknown key
// 'cel'; accepted: fact, cell, lanes, count".
struct ManifestError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The needs a manifest may name: compute capability 8.0, a cooperative launch, thread-block
// clusters (sm_90), the build's PTX/SASS listing, compute-sanitizer, two GPUs.
inline const char* const kManifestNeeds[] = {"cc80",    "cooperative-launch", "clusters",
                                             "listing", "sanitizer",          "two-gpus"};

// A cell's row by the value one of its columns holds (an integer, or a text).
struct RowMatch {
  std::string column;
  std::optional<long long> integer;
  std::string text;
};

struct AnswerRead {
  enum class What { fact, cell, lanes, count, check, headers, cells, compare, number };
  What what = What::fact;
  std::string section, name;  // fact: the fact's id (or its stem); cell/lanes/count: the table's id
  bool result = false;        // fact: "<name>-gpu" with a GPU, else "<name>-model"
  // cell: the row, by index or by the first row whose columns hold the values
  std::optional<std::size_t> row_index;
  std::vector<RowMatch> row;
  std::vector<std::string> columns;  // cell: one or more ("@result": the run's result column)
  std::string gpu_column;            // cell: read instead of the column when the run had a GPU
  std::string key;                   // lanes: the column collected
  std::string marked;                // lanes/count: rows with this mark (report::to_string(RowMark))
  std::string where_column;          // lanes/count: rows whose column equals `where`'s value
  std::shared_ptr<AnswerRead> where;
  std::vector<std::pair<std::string, std::string>> tables;  // cells: (section, table), in order
  bool same = false;                                        // cells: whether they are all the same
  std::vector<std::shared_ptr<AnswerRead>> operands;        // compare: the two values compared
  double number = 0;                                        // number: a compare's constant operand
  std::optional<std::string> has;  // "yes"/"no": whether the value's words hold this one
  std::vector<std::string> lacks;  // the ones of these words the value's words lack
  std::map<std::string, std::string> map;  // the value given for another
  bool shown = false;                      // fact/cell/cells: as the report shows it, by its format
  std::string prefix;                      // headers: of column keys starting so
  bool titles = false;                     // headers: their titles, not how many
  bool detail = false;                     // check: its detail, not whether it passed
};

struct ManifestExercise {
  Exercise exercise;                 // number, id, former ids, kind, format, needs_gpu, why (and texts)
  std::vector<std::string> run;      // the lesson's arguments
  std::optional<AnswerRead> read;          // the answer, or
  std::string compute;               // the lesson code's name for it
  std::vector<std::pair<std::string, AnswerRead>> values;  // the {names} the why fills in
  int line = 0;                      // where the row starts, for messages
};

// One of the lesson's own options, as "options" declares it; core builds the command line from these
// (core/parts/option_binder.hpp), and the lesson's code only names the field each fills.
//
//   {"name": "--blocks", "kind": "count", "min": 1, "max": 4096, "help": "option.blocks"}
//   {"name": "--delays", "kind": "count", "list": true, "min": 1, "max": 100000000, "help": ...}
//   {"name": "--model", "kind": "choice", "choices": ["lockstep", "independent"], "help": ...}
//   {"name": "--fence", "kind": "choice", "list": [1, 2], "choices": [...], "help": ...}
//   {"name": "--mask", "kind": "mask", "help": "option.mask"}                 (a 32-bit lane mask)
//   {"name": "--trace", "kind": "flag", "help": "option.trace"}
//   {"name": "--key", "kind": "text", "accepted": "option.key-accepted", "help": ...}
//
// A count is a whole number min..max (each item of a list); a choice one of its words; a text is
// checked by the lesson's code, and `accepted` is the catalog key of what it takes. "list": true
// takes comma-separated items (or [least, most] of them). "help" is a key of the lesson's catalog,
// filled with {min}, {max}, {default} and the "help_args" where the sentence names them; "default"
// is the value the help states (a part may choose its own when the option is not given); "hidden"
// options (for the tool's own child processes) have no help.
struct OptionSpec {
  enum class Kind { count, choice, mask, flag, text };
  std::string name;  // "--blocks"
  Kind kind = Kind::count;
  bool list = false;
  std::size_t least = 1, most = 0;  // a list's items (most 0: any number)
  std::uint64_t min = 0, max = 0;   // count
  std::vector<std::string> choices;  // choice
  std::string accepted;              // text: the catalog key of what it accepts
  std::string help;                  // the catalog key of its help ("" when hidden)
  std::optional<std::string> default_value;  // as the help shows it
  std::vector<std::pair<std::string, long long>> help_args;  // other numbers the help names
  bool hidden = false;
  int line = 0;
};

// "count", "choice", ...
const char* to_string(OptionSpec::Kind kind);

// One part of the lesson, as "parts" declares it, in the order the lesson runs them; the lesson's
// code gives only the function that returns its section (core/parts/lesson.hpp), its catalog the
// title and summary (part.<id>.title, part.<id>.summary).
//
//   {"id": "stale-reads", "reads": ["--blocks", "--iterations", "--runs"]}
//   {"id": "copy-destructor", "needs_gpu": true, "child": true}
//   {"id": "ptx", "default": false}
//   {"id": "xf-lock-unrepaired", "reads": [...], "former_ids": ["xf-lock-seed"]}
//
// "reads": the options it reads (an option given for no selected part is refused); "needs_gpu":
// only a GPU gives its results; "child": it runs a child process (it may hang or fault the GPU);
// "default": false when it runs only when --part names it; "former_ids": ids it had in earlier
// releases, which --part still takes.
struct PartSpec {
  std::string id;
  std::vector<std::string> reads;
  bool needs_gpu = false;
  bool child = false;
  bool by_default = true;
  std::vector<std::string> former_ids;
  int line = 0;
};

// One compute-sanitizer run of the lesson, as "sanitize" declares it; scripts/gpu.sh runs them
// (`scripts/gpu.sh LESSON`), judging each by `expect`:
//
//   {"tool": "racecheck", "expect": "caught", "args": ["--part", "syncwarp", "--variant", "racy"]}
//
// tool: memcheck, racecheck, synccheck, or memcheck-kernels (memcheck without CUDA API errors, for
// a part that calls NCCL); expect: clean (no report, every check passed), caught (the tool reports
// what the run does wrong on purpose) or own (the lesson runs the tool itself and shows its report
// as the table of that name); args: the lesson's arguments, whose --part names its parts.
struct SanitizerRun {
  std::string tool, expect;
  std::vector<std::string> args;
};

// One --predict question of the lesson, as "predictions" declares it: the part it runs, its answers
// (lower-case, as the score names them) and other words a student may answer with, each for one of
// them. The question is the catalog's prediction.<part>.question (and .question-model where the
// model is asked another); the lesson's code reads the truth from the part's section.
//
//   {"part": "warp-deadlock", "choices": ["completes", "deadlocks"], "aliases": {"hangs": "deadlocks"}}
struct PredictionSpec {
  std::string part;
  std::vector<std::string> choices;
  std::vector<std::pair<std::string, std::string>> aliases;
};

struct Manifest {
  std::string lesson;
  std::string file;  // as messages name it: "lessons/lock/lesson.json"
  int order = 0;     // the lesson's place in the course (built in: 1, 2, ...; cmake/lessons.cmake sorts by it)
  std::vector<std::string> tour;
  // "needs": [{"need": "cooperative-launch", "for": "need.cooperative-launch"}]: what the lesson uses
  // beyond a GPU (kManifestNeeds), and the catalog key of what uses it; doctor reads them.
  std::vector<std::pair<std::string, std::string>> needs;
  std::vector<OptionSpec> options;  // the lesson's own options, in the order the help lists them
  std::vector<PartSpec> parts;      // in the order they run
  // "bench": {"reads": [...]}: the lesson has a sweep of its own, which --bench runs, reading these
  // options.
  bool bench = false;
  std::vector<std::string> bench_reads;
  std::vector<SanitizerRun> sanitize;
  std::vector<PredictionSpec> predictions;
  std::vector<ManifestExercise> exercises;

  // The option named so ("--blocks"), or nullptr.
  const OptionSpec* option(std::string_view name) const;
};

enum class ManifestOrigin {
  built_in,  // lessons/<lesson>/lesson.json: numbered rows, words in the lesson's texts
  teacher,   // $CUDASYNC_COURSE_DIR/<lesson>.json: no numbers, question and hint in the row
};

// "a, b, c": the words a message accepts.
std::string comma_list(const std::vector<std::string>& words);

// Parses and validates one manifest; ManifestError names file:line: key: what is wrong, and what is
// accepted. `lessons` are the ids a teacher's file may name (empty: not checked).
Manifest parse_manifest(std::string_view text, const std::string& file, ManifestOrigin origin,
                        const std::vector<std::string>& lessons = {});

}  // namespace cudasync::course
