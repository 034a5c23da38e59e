#include "core/parts/prediction.hpp"

#include "core/words/words.hpp"

#include <cctype>
#include <cstdio>
#include <iostream>

#include "core/errors.hpp"

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
  return std::nullopt;
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

std::string ask_prediction(const Prediction& p) {
  std::cerr << "predict: " << p.question << "\n";
  for (int i = 0; i < kTries; ++i) {
    std::cerr << "your prediction (" << choices_text(p) << "): " << std::flush;
    const auto line = read_line();
    if (!line) {
      std::cerr << "\n";
      throw UsageError("--predict: the input ended before a prediction was given; accepted: one of " +
                       choices_text(p) + ", typed on the terminal or given with --prediction");
    }
    if (const auto c = choice_of(p, *line)) return *c;
    std::cerr << "'" << line->substr(0, 40) << "' is not one of " << choices_text(p) << "\n";
  }
  throw UsageError("--predict: no prediction in " + std::to_string(kTries) + " tries; accepted: one of " +
                   choices_text(p));
}

report::Section prediction_section(const Prediction& p, const std::string& prediction, const Truth& t) {
  report::Section s("prediction", "your prediction, beside the run");
  s.paragraph(p.question);
  s.fact("yours", "your prediction", prediction);
  s.fact("gpu", "this GPU", t.gpu ? report::Value{*t.gpu} : report::Value{report::NeedsGpu{}});
  s.fact("model", "the reference model",
         t.model ? report::Value{*t.model} : report::Value{std::string("cannot say")});
  const std::optional<std::string>& against = t.gpu ? t.gpu : t.model;
  std::string score = "no score", why = "neither this run nor the model can say";
  if (against) {
    score = prediction == *against ? "right" : "wrong";
    why = std::string("against ") + (t.gpu ? "what this GPU did" : "the model (no GPU in this run)");
  }
  s.fact("score", "score", score, report::Format::plain, why);
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
