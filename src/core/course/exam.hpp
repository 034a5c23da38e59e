#pragma once
// Exam mode: a teacher's switch that keeps answers hidden. It is on when
//   - CUDASYNC_EXAM is 1, yes or true (a shell, a job script);
//   - the file `exam` exists in the teacher's course folder ($CUDASYNC_COURSE_DIR/exam);
//   - the lab machine's system-wide file exists: /etc/cudasync/exam (CUDASYNC_EXAM_FILE names
//     another path, for tests and for labs that keep it elsewhere).
// Then `exercise --answer` and `explain --answers` are refused (exit 2, saying what set exam mode),
// and a wrong answer is told it is wrong and nothing more. CUDASYNC_EXAM=0 does not lift a file's.
#include <optional>
#include <string>

namespace cudasync::course {

// What set exam mode ("CUDASYNC_EXAM=1", "/etc/cudasync/exam", ...), or nullopt when it is off.
std::optional<std::string> exam_mode();

}  // namespace cudasync::course
