# The git sha goes into every JSON document; a tarball build says "unknown".
find_package(Git QUIET)
set(CUDASYNC_GIT_SHA "unknown")
if(GIT_FOUND AND EXISTS "${PROJECT_SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --short=12 HEAD
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}" OUTPUT_VARIABLE _sha
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
  if(_rc EQUAL 0 AND _sha)
    set(CUDASYNC_GIT_SHA "${_sha}")
  endif()
endif()
