# CPack: `cpack -G DEB` (run in a build directory) makes cudasync_<version>_<arch>.deb from the
# install rules (cmake/install.cmake). Its version is project()'s; its Depends are computed by
# dpkg-shlibdeps from what the binary links (libc6, libgcc-s1, libstdc++6: spdlog and fmt are
# header-only, the CUDA runtime is static); the NVIDIA driver, which provides libcuda.so.1 at run
# time, is a Recommends: without it every lesson runs on the reference model. So are md4c's
# libraries, loaded at run time too: without them `explain` shows the Markdown as written.
set(CPACK_PACKAGE_NAME "cudasync")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR "The cudasync authors")
# Debian's Maintainer field is a name and an address: whoever builds the .deb for a lab is its
# maintainer there (-DCUDASYNC_PACKAGE_MAINTAINER="Name <address>").
set(CUDASYNC_PACKAGE_MAINTAINER "cudasync authors <cudasync@users.noreply.github.com>" CACHE STRING
    "The .deb's Maintainer: \"Name <address>\"")
set(CPACK_PACKAGE_CONTACT "${CUDASYNC_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CUDASYNC_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "Runs GPU synchronization techniques (warp primitives, barriers, fences,\n\
locks, grid barriers, deadlocks) on an NVIDIA GPU, shows what every lane,\n\
warp or block did, checks the GPU against a CPU reference model, measures\n\
the cost beside NVIDIA's built-in and explains why. Without a GPU every\n\
lesson runs on the reference model. `cudasync doctor` says what this\n\
machine has and lacks.")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR "DEB")

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # cudasync_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
find_program(CUDASYNC_DPKG_SHLIBDEPS dpkg-shlibdeps)
find_program(CUDASYNC_FILE file)
if(CUDASYNC_DPKG_SHLIBDEPS AND CUDASYNC_FILE)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  # Without dpkg-dev (dpkg-shlibdeps) and file: what the binary links, as readelf shows it.
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.34), libgcc-s1 (>= 3.0), libstdc++6 (>= 12)")
endif()
set(recommends "libmd4c0, libmd4c-html0")
if(CUDASYNC_HAVE_CUDA)
  # libcuda.so.1 comes with the driver: Debian's (and NVIDIA's repository's) libcuda1, Ubuntu's
  # libnvidia-compute-<branch>. Minor version compatibility: a CUDA 13.x runtime needs R580+,
  # 12.x R525+ (src/core/nvidia_driver.hpp).
  if(CUDAToolkit_VERSION_MAJOR GREATER_EQUAL 13)
    set(branch 580)
  else()
    set(branch 525)
  endif()
  string(APPEND recommends ", libcuda1 (>= ${branch}) | libnvidia-compute-${branch}")
endif()
set(suggests "")
if(CUDASYNC_HAVE_CUDA)
  # NVRTC compiles the kernels students write (loaded at run time as libnvrtc.so.<major>): NVIDIA's
  # CUDA repository (and Ubuntu's multiverse) name its package cuda-nvrtc-<major>-<minor>.
  string(APPEND recommends ", cuda-nvrtc-${CUDAToolkit_VERSION_MAJOR}-${CUDAToolkit_VERSION_MINOR}")
endif()
if(CUDASYNC_HAVE_NCCL)
  # NCCL gives multi-gpu its all-reduce rows, on machines with two GPUs (libnccl.so.2, loaded at
  # run time): libnccl2 in NVIDIA's repository and Debian's non-free.
  set(suggests "libnccl2")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "${recommends}")
if(suggests)
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "${suggests}")
endif()
# Debian policy 12.5 and 12.7: the copyright file and a compressed changelog in /usr/share/doc/cudasync.
# The changelog's date is the last commit's, so the same tree makes the same package.
set(CUDASYNC_CHANGELOG_DATE "")
if(GIT_FOUND AND EXISTS "${PROJECT_SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" log -1 --format=%aD WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
                  OUTPUT_VARIABLE CUDASYNC_CHANGELOG_DATE OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(NOT CUDASYNC_CHANGELOG_DATE)
  string(TIMESTAMP CUDASYNC_CHANGELOG_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
endif()
configure_file("${CMAKE_CURRENT_LIST_DIR}/changelog.in" "${CMAKE_BINARY_DIR}/package/changelog" @ONLY)
find_program(CUDASYNC_GZIP gzip REQUIRED)
execute_process(COMMAND "${CUDASYNC_GZIP}" -9nkf "${CMAKE_BINARY_DIR}/package/changelog" COMMAND_ERROR_IS_FATAL ANY)
install(FILES "${CMAKE_CURRENT_LIST_DIR}/copyright" "${CMAKE_BINARY_DIR}/package/changelog.gz"
        DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/doc/cudasync")

include(CPack)
