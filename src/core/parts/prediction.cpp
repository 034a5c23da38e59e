#include "core/parts/prediction.hpp"

#include "core/words/words.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iostream>

#include "core/cli/terminal.hpp"
#include "core/errors.hpp"
#include "core/report/text_width.hpp"

namespace cudasync::parts {

namespace {

constexpr std::size_t kMaxLine = 200;  // bytes of one typed prediction
constexpr int kTries = 3;

std::string trimmed_lower(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  std::string out = s.substr(a, b - a);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// One line of stdin, at most kMaxLine bytes kept (the rest of a longer line is read and dropped);
// nullopt at the end of the input.
std::optional<std::string> read_line() {
  std::string line;
  int c = 0;
  bool any = false;
  while ((c = std::getchar()) != EOF) {
    any = true;
    if (c == '\n') return line;
    if (line.size() < kMaxLine) line += static_cast<char>(c);
  }
  return any ? std::optional<std::string>(line) : std::nullopt;
}

}  // namespace

std::optional<std::string> choice_of(const Prediction& p, const std::string& given) {
  const std::string g = trimmed_lower(given);
  for (const auto& c : p.choices)
    if (g == c) return c;
  for (const auto& [alias, c] : p.aliases)
    if (g == alias) return c;
  // yes / no, short and in Chinese, wherever the question is one to answer so.
  static const std::vector<std::pair<std::string, std::string>> yes_no = {
      {"y", "yes"}, {"是", "yes"}, {"会", "yes"}, {"对", "yes"}, {"n", "no"}, {"否", "no"}, {"不会", "no"}, {"不", "no"}};
  for (const auto& [alias, c] : yes_no)
    if (g == alias && std::find(p.choices.begin(), p.choices.end(), c) != p.choices.end()) return c;
  return std::nullopt;
}

const std::string& question_for(const Prediction& p, bool gpu) {
  return gpu || p.model_question.empty() ? p.question : p.model_question;
}

std::string choices_text(const Prediction& p) {
  std::string out;
  for (const auto& c : p.choices) out += (out.empty() ? "" : ", ") + c;
  return out;
}

std::string prediction_parts(const std::vector<Prediction>& predictions) {
  std::string out;
  for (const auto& pr : predictions) out += (out.empty() ? "" : ", ") + pr.part;
  return out;
}

PredictionChoice choose_prediction(const std::vector<Prediction>& predictions, const std::string& lesson,
                                   const std::vector<std::string>& parts, bool bench, bool predict,
                                   const std::string& given, bool stdin_is_terminal) {
  if (!given.empty() && !predict)
    throw UsageError("--prediction " + given + " is the answer to --predict; accepted: --predict --prediction VALUE");
  if (!predict) return {};
  if (bench)
    throw UsageError("--predict asks about one part, and --bench runs the sweep; accepted: --predict without --bench");
  PredictionChoice c;
  if (parts.empty()) c.index = 0;
  else if (parts.size() == 1)
    for (std::size_t i = 0; i < predictions.size(); ++i)
      if (predictions[i].part == parts.front()) c.index = i;
  if (!c.index || *c.index >= predictions.size())
    throw UsageError("--predict with --part " + (parts.empty() ? std::string() : parts.front()) +
                     (parts.size() > 1 ? ",..." : "") + ": " + lesson + " asks for a prediction about one of " +
                     prediction_parts(predictions) + "; accepted: --predict alone, or with one of those parts");
  const Prediction& pr = predictions[*c.index];
  if (!given.empty()) {
    const auto answer = choice_of(pr, given);
    if (!answer)
      throw UsageError("--prediction " + given + ": not an answer to the question of part " + pr.part +
                       "; accepted: one of " + choices_text(pr));
    c.answer = *answer;
  } else if (!stdin_is_terminal) {
    throw UsageError("--predict asks for your prediction on the terminal, and stdin is not one; accepted: "
                     "--prediction VALUE, one of " + choices_text(pr) + " (the question: " + pr.question + ")");
  }
  return c;
}

std::string ask_prediction(const Prediction& p, bool gpu) {
  // Wrapped to the terminal the student types in (stderr), so that no word breaks at its edge.
  const int columns = cli::terminal_columns(STDERR_FILENO);
  const std::size_t width = static_cast<std::size_t>(columns > 0 ? columns : 80) - 1;
  const std::string label = words::core("prediction.ask");
  const std::vector<std::string> lines = report::wrap_text(label + " " + question_for(p, gpu), width);
  for (const auto& line : lines) std::cerr << line << "\n";
  for (int i = 0; i < kTries; ++i) {
    std::cerr << words::core("prediction.your-answer", {{"choices", choices_text(p)}}) << " " << std::flush;
    const auto line = read_line();
    if (!line) {
      std::cerr << "\n";
      throw UsageError("--predict: the input ended before a prediction was given; accepted: one of " +
                       choices_text(p) + ", typed on the terminal or given with --prediction");
    }
    if (const auto c = choice_of(p, *line)) return *c;
    std::cerr << words::core("prediction.not-a-choice", {{"given", line->substr(0, 40)}, {"choices", choices_text(p)}}) << "\n";
  }
  throw UsageError("--predict: no prediction in " + std::to_string(kTries) + " tries; accepted: one of " +
                   choices_text(p));
}

report::Section prediction_section(const Prediction& p, const std::string& prediction, const Truth& t, bool gpu) {
  using words::core;
  report::Section s("prediction", core("prediction.title"));
  // What scores it is what the question asked: this GPU's run on a GPU, the model's verdict on the
  // model (a question about what a GPU may show).
  const std::optional<std::string>& against = gpu ? t.gpu : t.model;
  std::string score = "no score", why;
  if (against) {
    score = prediction == *against ? "right" : "wrong";
    why = core(gpu ? "prediction.against-gpu" : "prediction.against-model");
  } else {
    why = core(gpu ? "prediction.gpu-cannot-say" : "prediction.model-cannot-say");
  }
  s.fact("score", core("prediction.score"), score, report::Format::plain, why);
  s.paragraph(question_for(p, gpu));
  s.fact("yours", core("prediction.yours"), prediction);
  s.fact("gpu", core("prediction.gpu"), t.gpu ? report::Value{*t.gpu} : report::Value{report::NeedsGpu{}});
  s.fact("model", core("prediction.model"), t.model ? report::Value{*t.model} : report::Value{core("prediction.cannot-say")});
  if (!t.detail.empty()) s.note(t.detail);
  return s;
}

Truth weak_outcome_truth(const report::Section& s, const std::string& table_id, std::string_view catalog) {
  Truth t;
  const report::Table* table = find_table(s, table_id);
  if (table == nullptr || table->rows.empty()) return t;
  const std::string v = text_of(table->cell(0, "verdict"));
  const auto is = [&](std::string_view key) { return words::is_sentence(catalog, key, v); };
  if (is("verdict.allowed") || is("verdict.allowed-seen") || is("verdict.allowed-not-seen")) t.model = "yes";
  else if (is("verdict.forbidden") || is("verdict.forbidden-seen") || is("verdict.forbidden-not-seen")) t.model = "no";
  if (is("verdict.allowed-seen") || is("verdict.forbidden-seen")) t.gpu = "yes";
  else if (is("verdict.allowed-not-seen") || is("verdict.forbidden-not-seen")) t.gpu = "no";
  t.detail = words::say(catalog, t.model == std::optional<std::string>("yes") ? "prediction.detail-allowed" : "prediction.detail",
                        {{"verdict", v}});
  return t;
}

const report::Table* find_table(const report::Section& s, const std::string& id) {
  for (const auto& t : s.tables)
    if (t.id == id) return &t;
  return nullptr;
}

const report::Check* find_check(const report::Section& s, const std::string& id) {
  for (const auto& c : s.checks)
    if (c.id == id) return &c;
  return nullptr;
}

const report::Value* find_fact(const report::Section& s, const std::string& id) {
  for (const auto& f : s.facts)
    if (f.id == id) return &f.value;
  return nullptr;
}

std::string text_of(const report::Value& v) {
  const auto* s = std::get_if<std::string>(&v);
  return s ? *s : std::string();
}

}  // namespace cudasync::parts
