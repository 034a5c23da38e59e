#pragma once
// The words of the course live with the lesson's text, where a teacher edits them: in
// lessons/<lesson>/en.md and zh.md, the section "## Exercises" ("## 练习") holds each exercise as
//
//   ### 2. shfl-xor-lane
//
//   A warp of 32 lanes ...: which value does lane 5 receive from `__shfl_xor_sync(0xffffffff, v, 3, 8)`?
//
//   *Hint:* The source lane is ...                (zh: *提示：*)
//
//   *Hint:* A second, nearer nudge ...            (a ladder: --hint shows one more each time)
//
// and one paragraph starting "**Remember:**" ("**记住：**") holds the sentence the tour ends the
// lesson's stop with. The C++ row of an exercise (number, id, how its answer is computed) takes its
// question and hint from there, matched by number and id. The texts are installed for students, so
// they hold no answer: the why of a computed exercise ("lane 5 ^ 3 = lane {src}, which holds
// {answer}.") is in the row of the lesson's manifest (lessons/<lesson>/lesson.json), and its
// compute fills the {names} with what the run gave (Answer::values). A text that still has
// a why paragraph ("*Why:*", "*为什么：*") is refused, as is an `{answer}`-like template in it.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/course/exercise.hpp"
#include "core/course/kernel_exercise.hpp"

namespace cudasync::course {

struct ExerciseText {
  int number = 0;
  std::string id;
  std::string question;
  std::string hint;                // the first hint
  std::vector<std::string> hints;  // every *Hint:* paragraph, in order: the ladder
  std::string why;  // a why paragraph the text should not have: lesson_course refuses it
};

// The exercises of one lesson text, in its order; empty when it has no such section.
std::vector<ExerciseText> exercise_texts(std::string_view markdown, std::string_view lang);
// The "**Remember:**" sentence of one lesson text; "" when it has none.
std::string remember_text(std::string_view markdown, std::string_view lang);

// What only a lesson's code gives the rows of its manifest that name it.
struct LessonCode {
  std::map<std::string, std::function<Answer(LessonRunner&)>> computes;  // by the row's "compute"
};

// The lesson's course, from its manifest (lessons/<lesson>/lesson.json, embedded): the tour's
// arguments, the rows (a read's compute built from the row, a named one from `code`, their whys),
// their questions and hints and the sentence to remember from the lesson's en and zh texts. Throws
// std::logic_error naming what is missing or does not match (a row without its text, a text
// without its row, a number beside another id, a why left in a text, a compute or kernel `code`
// lacks, or one it has that no row names).
LessonCourse lesson_course(const std::string& lesson, const LessonCode& code = {});

// What a compute returns: the answer, and the values its why text names.
Answer found(std::string value, std::vector<std::pair<std::string, std::string>> values = {});

}  // namespace cudasync::course
