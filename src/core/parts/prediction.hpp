#pragma once
// Predict, then run (`cudasync <lesson> --predict`): for a part where intuition fails, the tool
// asks the student what the hardware will do before it runs, then scores the prediction beside
// what this GPU did and what the reference model says. A lesson declares its predictions in its
// manifest ("predictions": the part, the answers, other words for them; the question in its
// catalog) and reads the truth in its table (core/parts/lesson.hpp), one per part at most:
//
//   parts::PredictionTruth{"litmus",
//                          [](const report::Section& s) { return parts::Truth{gpu_answer, model_answer, detail}; }}
//
// The prediction comes from the terminal (a prompt on stderr, a line on stdin) or from
// `--prediction VALUE` for scripts. Without a terminal and without --prediction the run stops
// before it starts: a usage error (exit 2) that says so, never a wait.
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/report/report.hpp"

namespace cudasync::parts {

// What the run says the answer is, in the prediction's own words ("yes", "no").
struct Truth {
  std::optional<std::string> gpu;    // what this GPU did; nullopt on the model
  std::optional<std::string> model;  // what the reference model says; nullopt where it cannot say
  std::string detail;                // the counts or verdicts behind them
};

// A prediction in the lesson's code: the part (its manifest row under "predictions" gives the
// answers) and how its section says the truth.
struct PredictionTruth {
  std::string part;
  std::function<Truth(const report::Section&)> truth;
};

struct Prediction {
  std::string part;                  // the part it runs
  std::string question;              // asked before a run on a GPU: what this run will show
  std::vector<std::string> choices;  // the answers, lower-case, as the score names them
  std::function<Truth(const report::Section&)> truth;  // reads the part's section
  // Asked instead on the model (no GPU): what the model decides, as "may a GPU show ...?" where
  // the model says what is allowed and not what a run shows. Empty: the question is the same,
  // and the model's answer scores it (or nothing does, where the model cannot say).
  std::string model_question = {};
  // Other words a student may answer with, each for one of the choices ("complete" ->
  // "completes"). yes / no take y, n and the Chinese 是 / 否, 会 / 不会 by themselves.
  std::vector<std::pair<std::string, std::string>> aliases = {};
};

// What --predict and --prediction select: the prediction (nullopt without --predict) and the answer
// given on the command line ("" when it is to be asked on the terminal).
struct PredictionChoice {
  std::optional<std::size_t> index;
  std::string answer;
};
// `parts` is --part as given. Throws UsageError for --prediction without --predict, --predict with
// --bench or with parts that ask nothing, an answer that is not a choice, or no answer and no terminal.
PredictionChoice choose_prediction(const std::vector<Prediction>& predictions, const std::string& lesson,
                                   const std::vector<std::string>& parts, bool bench, bool predict,
                                   const std::string& given, bool stdin_is_terminal);
// "litmus, scope": the parts that ask.
std::string prediction_parts(const std::vector<Prediction>& predictions);

// `given` as one of the choices or their aliases (case and surrounding blanks ignored), or nullopt.
std::optional<std::string> choice_of(const Prediction& p, const std::string& given);
// "yes, no"
std::string choices_text(const Prediction& p);

// The question a run asks: on a GPU `question`, on the model `model_question` where there is one.
const std::string& question_for(const Prediction& p, bool gpu);

// Asks on the terminal: the question (wrapped to the terminal) and the choices on stderr, one
// line from stdin (at most 200 bytes read), three tries. Throws UsageError when stdin ends or no
// try is one of the choices.
std::string ask_prediction(const Prediction& p, bool gpu);

// The section that scores it (id "prediction"), which the report shows first: the score, the
// question that was asked, the prediction, and what scored it: on a GPU what this GPU did, on the
// model the model's answer (none where the model cannot say: "no score", with how to get one).
report::Section prediction_section(const Prediction& p, const std::string& prediction, const Truth& t, bool gpu);

// The truth of "will the weak outcome show at least once?" for a table whose first row's column
// "verdict" says what the model allows and, on a GPU, whether it was seen, as the litmus tables do:
// the sentence of the lesson catalog's verdict.allowed, verdict.allowed-seen, verdict.allowed-not-seen
// or the forbidden three, in the run's language; the detail is its prediction.detail (or
// prediction.detail-allowed) with {verdict}. The model answers "yes" for an allowed outcome: it may
// show; whether it does is the hardware's.
Truth weak_outcome_truth(const report::Section& s, const std::string& table_id, std::string_view catalog);

// Reading a part's section by id, for a truth: nullptr when absent.
const report::Table* find_table(const report::Section& s, const std::string& id);
const report::Check* find_check(const report::Section& s, const std::string& id);
const report::Value* find_fact(const report::Section& s, const std::string& id);
// A cell as text ("" for a number, Undefined or NeedsGpu).
std::string text_of(const report::Value& v);

}  // namespace cudasync::parts
