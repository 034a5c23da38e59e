#include "core/course/exercise_texts.hpp"

#include <algorithm>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/course/answer_read.hpp"
#include "core/course/built_in_manifest.hpp"
#include "core/course/manifest.hpp"
#include "core/lesson_texts.hpp"

namespace cudasync::course {

namespace {

struct Words {
  std::string_view exercises, hint, why, remember;
};

Words words_of(std::string_view lang) {
  if (lang == "zh") return {"## 练习", "*提示：*", "*为什么：*", "**记住：**"};
  return {"## Exercises", "*Hint:*", "*Why:*", "**Remember:**"};
}

bool wide_at_end(const std::string& s) {
  return s.size() >= 3 && (static_cast<unsigned char>(s[s.size() - 3]) & 0xf0) == 0xe0;
}

bool wide_at_start(std::string_view s) { return !s.empty() && (static_cast<unsigned char>(s[0]) & 0xf0) == 0xe0; }

// The lines of a paragraph as one line: a space between them, none between two Chinese characters.
void append_line(std::string& to, std::string_view line) {
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  if (line.empty()) return;
  if (!to.empty() && !(wide_at_end(to) && wide_at_start(line))) to += ' ';
  to.append(line);
}

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

std::vector<ExerciseText> exercise_texts(std::string_view markdown, std::string_view lang) {
  const Words w = words_of(lang);
  std::vector<ExerciseText> out;
  bool inside = false, in_code = false;
  std::string* into = nullptr;  // the field the paragraph being read goes to
  for (const std::string& line : lines_of(markdown)) {
    if (line.rfind("```", 0) == 0) in_code = !in_code;
    if (in_code) continue;
    if (line.rfind("## ", 0) == 0) {
      inside = line == w.exercises;
      continue;
    }
    if (!inside) continue;
    if (line.rfind("### ", 0) == 0) {
      ExerciseText t;
      std::istringstream head(line.substr(4));
      char dot = 0;
      head >> t.number >> dot >> t.id;
      if (dot != '.') t.number = 0;
      out.push_back(t);
      into = &out.back().question;
      continue;
    }
    if (out.empty() || line.rfind("```", 0) == 0) continue;
    std::string_view rest = line;
    if (line.rfind(std::string(w.hint), 0) == 0) {
      // Each *Hint:* paragraph is the next rung of the ladder (--hint shows one more each time).
      out.back().hints.emplace_back();
      into = &out.back().hints.back();
      rest.remove_prefix(w.hint.size());
    } else if (line.rfind(std::string(w.why), 0) == 0) {
      into = &out.back().why;
      rest.remove_prefix(w.why.size());
    }
    append_line(*into, rest);
  }
  for (auto& t : out)
    if (!t.hints.empty()) t.hint = t.hints.front();
  return out;
}

std::string remember_text(std::string_view markdown, std::string_view lang) {
  const Words w = words_of(lang);
  std::string out;
  bool inside = false;
  for (const std::string& line : lines_of(markdown)) {
    if (!inside && line.rfind(std::string(w.remember), 0) == 0) {
      inside = true;
      append_line(out, std::string_view(line).substr(w.remember.size()));
      continue;
    }
    if (!inside) continue;
    if (line.empty()) break;
    append_line(out, line);
  }
  return out;
}

LessonCourse lesson_course(const std::string& lesson, const LessonCode& code) {
  const auto fail = [&](const std::string& what) { throw std::logic_error("course: " + lesson + ": " + what); };
  auto manifest = std::make_shared<const Manifest>(built_in_manifest(lesson));
  LessonCourse c;
  c.tour_args = manifest->tour;
  c.needs = manifest->needs;
  std::vector<Exercise> rows;
  std::set<std::string> computes_used;
  for (std::size_t i = 0; i < manifest->exercises.size(); ++i) {
    const ManifestExercise& m = manifest->exercises[i];
    Exercise e = m.exercise;
    if (e.kind == Kind::kernel) {
      // The checker runs every kernel row from its spec (core/course/kernel_check.hpp).
    } else if (!m.compute.empty()) {
      const auto compute = code.computes.find(m.compute);
      if (compute == code.computes.end()) fail("exercise " + e.id + " names compute '" + m.compute + "', which the lesson's code lacks");
      computes_used.insert(m.compute);
      e.compute = compute->second;
    } else {
      e.compute = [manifest, i, lesson](LessonRunner& r) { return read_answer(manifest->exercises[i], lesson, r); };
    }
    rows.push_back(std::move(e));
  }
  for (const auto& [name, f] : code.computes)
    if (computes_used.count(name) == 0) fail("the lesson's code has a compute '" + name + "' no row names");
  for (const char* lang : {"en", "zh"}) {
    const auto text = find_lesson_text(lesson, lang);
    if (!text) fail(std::string("no ") + lang + " text");
    const std::string sentence = remember_text(*text, lang);
    if (sentence.empty()) fail(std::string(lang) + ".md has no sentence to remember");
    (std::string(lang) == "zh" ? c.remember.zh : c.remember.en) = sentence;
    const std::vector<ExerciseText> texts = exercise_texts(*text, lang);
    if (texts.size() != rows.size())
      fail(std::string(lang) + ".md has " + std::to_string(texts.size()) + " exercises, lesson.json " +
           std::to_string(rows.size()));
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const ExerciseText& t = texts[i];
      if (t.number != rows[i].number || t.id != rows[i].id)
        fail(std::string(lang) + ".md's exercise " + std::to_string(t.number) + ". " + t.id + " is lesson.json's " +
             std::to_string(rows[i].number) + ". " + rows[i].id);
      if (t.question.empty() || t.hint.empty())
        fail(std::string(lang) + ".md's exercise " + t.id + " lacks its question or its hint");
      if (!t.why.empty())
        fail(std::string(lang) + ".md's exercise " + t.id +
             " has a why paragraph: a student's text carries no answer; it goes to lesson.json's row");
      const bool zh = std::string(lang) == "zh";
      (zh ? rows[i].question.zh : rows[i].question.en) = t.question;
      (zh ? rows[i].hint.zh : rows[i].hint.en) = t.hint;
      if (zh && t.hints.size() != rows[i].hints.size())
        fail("zh.md's exercise " + t.id + " has " + std::to_string(t.hints.size()) + " hints, en.md's " +
             std::to_string(rows[i].hints.size()));
      rows[i].hints.resize(t.hints.size());
      for (std::size_t h = 0; h < t.hints.size(); ++h) (zh ? rows[i].hints[h].zh : rows[i].hints[h].en) = t.hints[h];
    }
  }
  c.exercises = std::move(rows);
  return c;
}

Answer found(std::string value, std::vector<std::pair<std::string, std::string>> values) {
  Answer a;
  a.value = std::move(value);
  a.values = std::move(values);
  return a;
}

}  // namespace cudasync::course
