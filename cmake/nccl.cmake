# NCCL, optional: the multi-gpu lesson's NCCL rows (an all-reduce as a barrier, the all-reduce of a
# large array). AUTO uses it when found, OFF never, ON requires it. Debian's libnccl-dev (nccl.h in
# /usr/include) is found first; else the CUDA toolkit's own copy (CUDA 13 ships nccl.h and
# libnccl.so beside cudart). Without it the lesson waives those rows and says why.
#
# The binary does not link libnccl: it needs only the C++ runtime (tests/package), and loads
# libnccl.so.<major> with dlopen when a lesson first asks for NCCL (the library found here is its
# fallback path). nccl.h gives the types at build time.
# Sets CUDASYNC_HAVE_NCCL, CUDASYNC_NCCL_INCLUDE_DIR, CUDASYNC_NCCL_LIBRARY, CUDASYNC_NCCL_VERSION,
# CUDASYNC_NCCL_SONAME and CUDASYNC_NCCL_LIBRARY_REALPATH.
set(CUDASYNC_NCCL "AUTO" CACHE STRING "Build multi-gpu's NCCL parts: ON, OFF or AUTO")
set_property(CACHE CUDASYNC_NCCL PROPERTY STRINGS ON OFF AUTO)
set(CUDASYNC_HAVE_NCCL OFF)
set(CUDASYNC_NCCL_VERSION "")
if(CUDASYNC_HAVE_CUDA AND NOT CUDASYNC_NCCL STREQUAL "OFF")
  # PATHS are searched after the system's own directories: a Debian package wins over the toolkit.
  find_path(CUDASYNC_NCCL_INCLUDE_DIR nccl.h PATHS ${CUDAToolkit_INCLUDE_DIRS})
  find_library(CUDASYNC_NCCL_LIBRARY NAMES nccl PATHS ${CUDAToolkit_LIBRARY_DIR})
  if(CUDASYNC_NCCL_INCLUDE_DIR AND CUDASYNC_NCCL_LIBRARY)
    file(STRINGS "${CUDASYNC_NCCL_INCLUDE_DIR}/nccl.h" _nccl_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
    set(_nccl_version "")
    foreach(_part MAJOR MINOR PATCH)
      foreach(_line IN LISTS _nccl_lines)
        if(_line MATCHES "^#define NCCL_${_part} ([0-9]+)")
          list(APPEND _nccl_version "${CMAKE_MATCH_1}")
        endif()
      endforeach()
    endforeach()
    list(JOIN _nccl_version "." CUDASYNC_NCCL_VERSION)
    list(GET _nccl_version 0 _nccl_major)
    set(CUDASYNC_NCCL_SONAME "libnccl.so.${_nccl_major}")
    get_filename_component(CUDASYNC_NCCL_LIBRARY_REALPATH "${CUDASYNC_NCCL_LIBRARY}" REALPATH)
    set(CUDASYNC_HAVE_NCCL ON)
  elseif(CUDASYNC_NCCL STREQUAL "ON")
    message(FATAL_ERROR "CUDASYNC_NCCL=ON but nccl.h or libnccl was not found (install libnccl-dev, or a CUDA "
                        "toolkit that ships NCCL, or set CUDASYNC_NCCL_INCLUDE_DIR and CUDASYNC_NCCL_LIBRARY)")
  endif()
elseif(CUDASYNC_NCCL STREQUAL "ON")
  message(FATAL_ERROR "CUDASYNC_NCCL=ON needs the GPU backend (CUDASYNC_CUDA ON or AUTO with nvcc found)")
endif()
if(CUDASYNC_HAVE_NCCL)
  message(STATUS "cudasync: NCCL ${CUDASYNC_NCCL_VERSION} (${CUDASYNC_NCCL_LIBRARY})")
else()
  message(STATUS "cudasync: NCCL not built in (CUDASYNC_NCCL=${CUDASYNC_NCCL}): multi-gpu waives its NCCL rows")
endif()
