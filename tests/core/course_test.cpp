// core/course as functions: how typed answers are read, where the progress state lives, how a
// state file is read and written, and the shared-GPU count NVML's process list gives.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/course/answer_format.hpp"
#include "core/course/course.hpp"
#include "core/course/exercise_texts.hpp"
#include "core/course/progress.hpp"
#include "core/lesson_texts.hpp"
#include "core/shared_gpu.hpp"
#include "core/words/words.hpp"
#include "support/temp_dir.hpp"

using namespace cudasync;
using course::AnswerFormat;
using course::AnswerKind;
using course::canonical;

namespace {

namespace fs = std::filesystem;

TEST(AnswerFormat, IntegersReadDecimalAndHexAndNothingElse) {
  const AnswerFormat f{AnswerKind::integer, {}};
  EXPECT_EQ(canonical(f, "6"), "6");
  EXPECT_EQ(canonical(f, " 0x1f "), "31");
  EXPECT_EQ(canonical(f, "-3"), "-3");
  for (const char* bad : {"", "six", "1.5", "1e3", "0x", "12 3", "99999999999999999999"})
    EXPECT_FALSE(canonical(f, bad)) << bad;
}

TEST(AnswerFormat, MasksAreNumbersShownInHex) {
  const AnswerFormat f{AnswerKind::mask, {}};
  EXPECT_EQ(canonical(f, "31"), "0x0000001f");
  EXPECT_EQ(canonical(f, "0x1F"), "0x0000001f");
  EXPECT_EQ(canonical(f, "0xffffffff"), "0xffffffff");
  EXPECT_FALSE(canonical(f, "0x100000000"));
  EXPECT_FALSE(canonical(f, "-1"));
}

TEST(AnswerFormat, ChoicesIgnoreCase) {
  const AnswerFormat f{AnswerKind::choice, {"yes", "no"}};
  EXPECT_EQ(canonical(f, "Yes"), "yes");
  EXPECT_FALSE(canonical(f, "maybe"));
  EXPECT_EQ(course::accepted(f), "one of yes, no");
}

// An exercise shows what it accepts from core's catalog; a usage error says it in English from
// course::accepted: the two English sentences are one.
TEST(AnswerFormat, WhatEachFormAcceptsReadsTheSameInTheCatalogsEnglish) {
  const std::pair<AnswerFormat, const char*> forms[] = {{{AnswerKind::integer, {}}, "answer.accepts-integer"},
                                                        {{AnswerKind::mask, {}}, "answer.accepts-mask"},
                                                        {{AnswerKind::choice, {"yes", "no"}}, "answer.accepts-choice"},
                                                        {{AnswerKind::lanes, {}}, "answer.accepts-lanes"}};
  for (const auto& [f, key] : forms) {
    const words::Args args = f.kind == AnswerKind::choice ? words::Args{{"choices", "yes, no"}} : words::Args{};
    EXPECT_EQ(words::say_in(words::Lang::en, "core", key, args), course::accepted(f)) << key;
  }
}

TEST(AnswerFormat, LanesAreASetInAnyOrderWithRanges) {
  const AnswerFormat f{AnswerKind::lanes, {}};
  EXPECT_EQ(canonical(f, "15,14,13,12"), "12-15");
  EXPECT_EQ(canonical(f, "12-15"), "12-15");
  EXPECT_EQ(canonical(f, "11, 3"), "3,11");
  EXPECT_EQ(canonical(f, "0,1,2,3,8,8"), "0-3,8");
  EXPECT_EQ(canonical(f, "None"), "none");
  for (const char* bad : {"", "3-", "-3", "5-2", "a,b", "0-99999"}) EXPECT_FALSE(canonical(f, bad)) << bad;
}

TEST(ProgressPath, XdgStateHomeThenHomeAndNeverARelativePath) {
  EXPECT_EQ(course::progress_path("/x/state", "/home/s").file, "/x/state/cudasync/progress.db");
  EXPECT_EQ(course::progress_path(nullptr, "/home/s").file, "/home/s/.local/state/cudasync/progress.db");
  EXPECT_EQ(course::progress_path("", "/home/s").file, "/home/s/.local/state/cudasync/progress.db");
  EXPECT_EQ(course::progress_path("relative", "/home/s").file, "/home/s/.local/state/cudasync/progress.db");
  const course::StatePath none = course::progress_path(nullptr, nullptr);
  EXPECT_EQ(none.file, "");
  EXPECT_FALSE(none.problem.empty());
}

TEST(ProgressState, RecordsAnswersAndReadsThemBack) {
  cudasync::test::TempDir d;
  const std::string file = d.path + "/cudasync/progress.db";
  EXPECT_TRUE(course::load_progress(file).warnings.empty()) << "no file is a fresh start, not a warning";
  EXPECT_FALSE(fs::exists(file)) << "reading makes no file";
  EXPECT_TRUE(course::record_answer(file, "lock", "a", false, "3", "model").warnings.empty());
  EXPECT_TRUE(course::record_answer(file, "lock", "a", true, "4", "model").warnings.empty());
  EXPECT_TRUE(course::record_answer(file, "lock", "b", false, "yes", "model").warnings.empty());
  const course::Loaded l = course::load_progress(file);
  ASSERT_TRUE(l.warnings.empty());
  const course::ExerciseRecord* a = l.progress.find("lock", "a");
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(a->solved);
  EXPECT_EQ(a->attempts, 2);
  EXPECT_EQ(a->last_answer, "4");
  EXPECT_FALSE(l.progress.solved("lock", "b"));
  EXPECT_FALSE(l.progress.solved("lock", "c"));
  // Each change a finished transaction: no journal is left behind.
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(d.path + "/cudasync")) files.push_back(e.path().filename().string());
  EXPECT_EQ(files, std::vector<std::string>{"progress.db"});
}

TEST(ProgressState, ACorruptStateIsAWarningAndAFreshStart) {
  cudasync::test::TempDir d;
  const std::string file = d.path + "/progress.db";
  std::ofstream(file) << "{\"format\": \"cudasync-progress\", \"version\": 1, \"lessons\": {\"lock\": 3}}";
  const course::Loaded l = course::load_progress(file);
  ASSERT_EQ(l.warnings.size(), 1u);
  EXPECT_NE(l.warnings[0].find("corrupt"), std::string::npos) << l.warnings[0];
  EXPECT_TRUE(l.progress.lessons.empty());
}

TEST(SharedGpu, CountsOtherProcessesWhateverPidNamespaceNvmlUses) {
  EXPECT_EQ(other_processes({}, 42), 0);
  EXPECT_EQ(other_processes({42}, 42), 0);
  EXPECT_EQ(other_processes({42, 7, 9}, 42), 2);
  // In a container NVML lists host PIDs: this process is one of them under another number.
  EXPECT_EQ(other_processes({1234}, 42), 0);
  EXPECT_EQ(other_processes({1234, 5678}, 42), 1);
}

TEST(SharedGpu, OnTheModelNothingIsSaid) {
  RunContext ctx;  // no GPU
  EXPECT_FALSE(other_processes_on_gpu(ctx));
  report::Section s("cost", "cost");
  note_if_gpu_shared(ctx, s);
  EXPECT_TRUE(s.notes.empty());
}

const char* kSample = R"(# a lesson

**Remember:** one thing,
on two lines.

## 4. Questions for class

1. Why?

## Exercises

```console
$ cudasync exercise a-lesson
```

### 1. first-one

Which value does `lane 5`
receive?

*Hint:* xor it.

*Why:* lane 5 ^ 3 = lane {src}, which
holds {answer}.

### 2. second-one

Yes or no?

*Hint:* think.

*Why:* because {answer}.

## Answers

1. Because.
)";

const char* kSampleZh = R"(**记住：**一件事，
分两行。

## 练习

### 1. first-one

lane 5 得到
哪个值？

*提示：*异或。

*为什么：*lane 5 ^ 3 = lane {src}，它持有 {answer}。
)";

TEST(ExerciseTexts, QuestionHintAndWhyByNumberAndId) {
  const auto t = course::exercise_texts(kSample, "en");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].number, 1);
  EXPECT_EQ(t[0].id, "first-one");
  EXPECT_EQ(t[0].question, "Which value does `lane 5` receive?");
  EXPECT_EQ(t[0].hint, "xor it.");
  EXPECT_EQ(t[0].why, "lane 5 ^ 3 = lane {src}, which holds {answer}.");
  EXPECT_EQ(t[1].id, "second-one");
  EXPECT_EQ(course::remember_text(kSample, "en"), "one thing, on two lines.");
  const auto zh = course::exercise_texts(kSampleZh, "zh");
  ASSERT_EQ(zh.size(), 1u);
  EXPECT_EQ(zh[0].question, "lane 5 得到哪个值？") << "no space between two Chinese lines";
  EXPECT_EQ(zh[0].hint, "异或。");
  EXPECT_EQ(course::remember_text(kSampleZh, "zh"), "一件事，分两行。");
}

TEST(ExerciseTexts, TheWhyIsFilledWithTheComputedValues) {
  const course::Answer a = course::found("6", {{"src", "6"}});
  EXPECT_EQ(course::filled("lane 5 ^ 3 = lane {src}, which holds {answer}.", a), "lane 5 ^ 3 = lane 6, which holds 6.");
}

// The lessons' texts are installed for students: every computed exercise takes its why from the
// lesson's table of whys, and none is left in a text (lesson_course would refuse it).
TEST(ExerciseTexts, EveryComputedExerciseHasItsWhyOutsideTheText) {
  for (const char* lesson : {"warp-primitives", "cg-reduce", "named-barriers", "threadfence", "lock",
                             "lockfree-barrier", "deadlock-demo"})
    for (const char* lang : {"en", "zh"}) {
      SCOPED_TRACE(std::string(lesson) + "/" + lang);
      const auto text = find_lesson_text(lesson, lang);
      ASSERT_TRUE(text.has_value());
      for (const auto& t : course::exercise_texts(*text, lang)) EXPECT_EQ(t.why, "") << t.id;
    }
}

}  // namespace
