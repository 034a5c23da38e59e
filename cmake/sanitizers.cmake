# CUDASYNC_SANITIZE=ON: AddressSanitizer and UndefinedBehaviorSanitizer on every host target (the
# model-asan preset: model-only, so no device code is involved). Any report aborts the process
# (-fno-sanitize-recover=all; the test presets set abort_on_error), so a test or the fuzz test
# fails on it.
option(CUDASYNC_SANITIZE "Build with -fsanitize=address,undefined (host code only)" OFF)
if(CUDASYNC_SANITIZE)
  if(CUDASYNC_HAVE_CUDA)
    message(FATAL_ERROR "CUDASYNC_SANITIZE is for the model-only build (CUDASYNC_CUDA=OFF): use compute-sanitizer on the GPU")
  endif()
  set(_sanitize -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${_sanitize}>")
  add_link_options(-fsanitize=address,undefined)
endif()
