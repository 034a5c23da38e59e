# Warnings live on an INTERFACE target that cudasync's own targets link privately.
add_library(cudasync_warnings INTERFACE)
set(_cxx_warnings -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  list(APPEND _cxx_warnings -Wno-maybe-uninitialized)  # GCC 12 false positives on std::variant<std::string>
endif()
if(CUDASYNC_WERROR)
  list(APPEND _cxx_warnings -Werror)
endif()
target_compile_options(cudasync_warnings INTERFACE
  "$<$<COMPILE_LANGUAGE:CXX>:${_cxx_warnings}>"
  "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall>"
  "$<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${CUDASYNC_WERROR}>>:-Werror=all-warnings>")
