# CUDASYNC_SANITIZE=ON: AddressSanitizer and UndefinedBehaviorSanitizer on every host target (the
# model-asan preset: model-only, so no device code is involved). Any report aborts the process
# (-fno-sanitize-recover=all; the test presets set abort_on_error), so a test or the fuzz test
# fails on it.
option(CUDASYNC_SANITIZE "Build with -fsanitize=address,undefined (host code only)" OFF)
if(CUDASYNC_SANITIZE)
  if(CUDASYNC_HAVE_CUDA)
    message(FATAL_ERROR "CUDASYNC_SANITIZE is for the model-only build (CUDASYNC_CUDA=OFF): use compute-sanitizer on the GPU")
  endif()
  # UBSan's checks that ASan already covers (null, object-size) or that cannot go wrong quietly on
  # x86-64 (alignment), and the two that cost the most to compile (vptr, pointer-overflow), are left
  # out: with them one unity batch took 99 s to compile, without them 46 s (GCC 12, -O1 -g1), and
  # the sanitizer build is the longest stage of the test command. What stays: signed overflow,
  # shifts, bounds, float-to-int casts, bool and enum loads, missing returns, division by zero.
  set(_ubsan_left_out null,alignment,object-size,vptr,pointer-overflow,nonnull-attribute,returns-nonnull-attribute)
  set(_sanitize -fsanitize=address,undefined -fno-sanitize=${_ubsan_left_out} -fno-sanitize-recover=all
    -fno-omit-frame-pointer)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${_sanitize}>")
  add_link_options(-fsanitize=address,undefined)
endif()
