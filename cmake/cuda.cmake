# Which GPUs the kernels are compiled for, when CMAKE_CUDA_ARCHITECTURES is not given (a preset or
# -D gives it: the package preset lists 7.5 through 9.0 plus PTX). CUDASYNC_CUDA_TARGET:
#   machine   (the default): machine code for the GPUs nvidia-smi reports here, so that the first
#             build on a student's machine compiles each kernel once, not six times; with no GPU
#             here, PTX for 7.5 alone (any GPU from 7.5 on compiles it when it first loads).
#   portable: 7.5 (Turing), 8.0, 8.6, 8.9 and 9.0 (Hopper), plus PTX for newer GPUs: what the .deb
#             carries.
set(CUDASYNC_CUDA_TARGET "machine" CACHE STRING "GPUs to compile for without CMAKE_CUDA_ARCHITECTURES: machine or portable")
set_property(CACHE CUDASYNC_CUDA_TARGET PROPERTY STRINGS machine portable)
set(CUDASYNC_PORTABLE_CUDA_ARCHITECTURES "75-real;80-real;86-real;89-real;90-real;90-virtual")

function(cudasync_choose_cuda_architectures out)
  if(CUDASYNC_CUDA_TARGET STREQUAL "portable")
    set(${out} "${CUDASYNC_PORTABLE_CUDA_ARCHITECTURES}" PARENT_SCOPE)
    return()
  elseif(NOT CUDASYNC_CUDA_TARGET STREQUAL "machine")
    message(FATAL_ERROR "CUDASYNC_CUDA_TARGET is '${CUDASYNC_CUDA_TARGET}' (accepted: machine, portable)")
  endif()
  set(archs "")
  find_program(CUDASYNC_NVIDIA_SMI nvidia-smi)
  if(CUDASYNC_NVIDIA_SMI)
    execute_process(COMMAND "${CUDASYNC_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET TIMEOUT 30)
    if(rc EQUAL 0)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" caps "${caps}")
      foreach(cap IN LISTS caps)
        string(REPLACE "." "" cc "${cap}")
        if(cc GREATER_EQUAL 75)
          list(APPEND archs "${cc}-real")
        endif()
      endforeach()
      list(REMOVE_DUPLICATES archs)
    endif()
  endif()
  if(NOT archs)
    set(archs "75-virtual")
    message(STATUS "cudasync: no GPU of compute capability 7.5 or newer here: PTX for 7.5 only "
                   "(-DCUDASYNC_CUDA_TARGET=portable compiles for every GPU the package supports)")
  endif()
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()

# Decide whether the GPU backend is built. Without a CUDA compiler the build still succeeds and
# produces a model-only binary (`cudasync --version` says which).
set(CUDASYNC_HAVE_CUDA OFF)
if(NOT CUDASYNC_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      cudasync_choose_cuda_architectures(CMAKE_CUDA_ARCHITECTURES)
    endif()
    message(STATUS "cudasync: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES}")
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
    find_package(CUDAToolkit REQUIRED)
    set(CUDASYNC_HAVE_CUDA ON)
  elseif(CUDASYNC_CUDA STREQUAL "ON")
    message(FATAL_ERROR "CUDASYNC_CUDA=ON but no CUDA compiler was found (set CUDACXX or put nvcc on PATH)")
  endif()
endif()
message(STATUS "cudasync: GPU backend ${CUDASYNC_HAVE_CUDA} (CUDASYNC_CUDA=${CUDASYNC_CUDA})")
