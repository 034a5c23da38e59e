#pragma once
// A lesson's parts are rows of its manifest (lessons/<lesson>/lesson.json, "parts": the options
// each reads, whether only a GPU gives its results, whether it runs a child process, whether it runs
// by default); its code gives a table of the functions that return their sections, by id. Core
// derives the rest: the --part choices and their help, the default selection, the "option X applies
// only to parts Y" errors, the shared setup section, the run loop, waivers, the --bench switch and
// the hidden child-process modes. A new part is one function, one row of code and one of the manifest.
//
//   // techniques/lock/lesson.cpp                  // lessons/lock/lesson.json
//   struct Run {                                    //   "parts": [
//     Run(const Options&, const RunContext&,        //     {"id": "stale-reads",
//         const parts::Selection&);                 //      "reads": ["--blocks", "--runs"]},
//     ...                                           //     ...
//   };
//   const parts::Lesson<Options, Run>& lesson() {
//     static const parts::Lesson<Options, Run> l{
//         "lock",
//         {{"stale-reads", stale_reads_part}, ...},
//         bind_options, validate, setup};
//     return l;
//   }
//
// Plain C++ (no CLI11 here: core/parts/attach.hpp wires a table to the command line).
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/parts/prediction.hpp"
#include "core/report/report.hpp"
#include "core/run_context.hpp"

namespace cudasync::parts {

class OptionBinder;  // core/parts/option_binder.hpp

// The parts a run selected, in table order: those --part named, or every default part.
struct Selection {
  std::vector<std::string> ids;
  bool by_user = false;  // --part was given
  bool bench = false;    // --bench runs the lesson's sweep instead of its parts
  bool child = false;    // a hidden child mode (--child): no part runs, so Run must start no child
  // --predict: the prediction of the one part that runs (its index in the lesson's predictions),
  // and the student's answer when --prediction gave it (else it is asked for on the terminal).
  std::optional<std::size_t> predict;
  std::string prediction;
  // A child mode's answer file (--child-out). A child that cannot return its answer (a kernel that
  // never ends: every CUDA call, a destructor's too, would wait for it) writes it here itself with
  // parts::write_child_answer and ends the process.
  std::string child_out;

  bool has(std::string_view id) const;
  bool any_of(std::initializer_list<std::string_view> part_ids) const;
};

// A part as core runs it: its manifest row (course::PartSpec) with its code's run function.
template <class Run>
struct Part {
  std::string id;       // kebab-case: the --part value, and the id of the section it returns
  std::vector<std::string> reads;  // the lesson options it reads, as typed ("--width")
  bool needs_gpu = false;  // only a GPU gives its results; on the model it explains what it can
  bool child = false;      // runs a child process (it may hang or fault the GPU)
  bool by_default = true;  // runs when --part is not given
  // Returns the part's section. Throws WaivedError (exit 77 if every part waives) when this GPU
  // cannot run it, UsageError for a bad combination only the part can see.
  std::function<report::Section(Run&)> run;
  // Ids this part had in earlier releases: --part still takes them, hidden from the help, and runs
  // this part.
  std::vector<std::string> former_ids = {};
};

// A part in the lesson's code: its manifest id and the function that returns its section.
template <class Run>
struct PartRun {
  std::string id;
  std::function<report::Section(Run&)> run;
};

// What --bench runs instead of the parts, when a lesson has a sweep of its own (the manifest's
// "bench" says which options it reads, the catalog's bench.summary what it measures).
template <class Run>
struct Bench {
  std::function<std::vector<report::Section>(Run&)> run;
};

// A hidden mode of the binary that a part starts as a child process (core/parts/child.hpp):
// `cudasync <lesson> --child <id> --child-out FILE ...`. It does the dangerous thing on the GPU
// and returns the one answer the parent reads back from FILE.
template <class Run>
struct Child {
  std::string id;
  std::function<std::string(Run&)> run;
};

// A lesson's table. `Run` is the lesson's per-run state, built once before the first part as
// Run(const Options&, const RunContext&, const Selection&): resolved inputs, results shared by
// several parts, a child process started early.
template <class Options, class Run>
struct Lesson {
  // The command name: kebab-case, the same stem as the lesson's folder. The report's title and the
  // one-line summary for list and help are the catalog's lesson.title and lesson.summary.
  std::string id;
  std::vector<PartRun<Run>> parts;  // one per row of the manifest's "parts", by id
  // Binds the lesson's own options, which its manifest declares ("options" in
  // lessons/<lesson>/lesson.json), to the fields of Options (core/parts/option_binder.hpp); --part
  // and the global options come from core.
  std::function<void(OptionBinder&, Options&)> bind_options;
  // Combinations only the lesson can judge, after parsing and before a backend is chosen.
  // Returns the message of a usage error (exit 2), naming the options, the values and what is accepted.
  std::function<std::optional<std::string>(const Options&, const Selection&, const RunContext&)> validate;
  // Fills the setup section (id "setup"): the lesson's inputs. Core adds the parts and the backend.
  std::function<void(Run&, report::Section&)> setup;
  // Sections drawn from several parts (a summary), appended after the parts. Optional.
  std::function<void(Run&, report::Report&)> finish;
  std::optional<Bench<Run>> bench;
  std::vector<Child<Run>> children;
  // `--predict`: the parts whose outcome the student predicts before the run (core/parts/prediction.hpp).
  std::vector<PredictionTruth> predictions;
  // The GPUs a run uses at most. A one-GPU lesson's process sees only its GPU (core/cli/app.cpp):
  // CUDA starts every GPU it can see, 130 ms for one H100 and 335 for two.
  int gpus = 1;
};

}  // namespace cudasync::parts
