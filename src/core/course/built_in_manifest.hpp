#pragma once
// A built-in lesson's manifest (lessons/<lesson>/lesson.json, embedded in the binary), parsed once
// per process. The build checked every manifest (src/tools/manifest_check.cpp), so a lesson with
// none, or one that does not parse, is a programming error (std::logic_error).
#include <string_view>

#include "core/course/manifest.hpp"

namespace cudasync::course {

const Manifest& built_in_manifest(std::string_view lesson);

}  // namespace cudasync::course
