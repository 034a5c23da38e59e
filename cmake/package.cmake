# CPack: `cpack -G DEB` (run in a build directory) makes cudasync_<version>_<arch>.deb from the
# install rules (cmake/install.cmake). Its version is project()'s; its Depends are computed by
# dpkg-shlibdeps from what the binary links (libc6, libgcc-s1, libstdc++6: spdlog and fmt are
# header-only, the CUDA runtime is static); the NVIDIA driver, which provides libcuda.so.1 at run
# time, is a Recommends: without it every lesson runs on the reference model. So are md4c's
# libraries, loaded at run time too: without them `explain` shows the Markdown as written.
set(CPACK_PACKAGE_NAME "cudasync")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR "The cudasync authors")
set(CPACK_PACKAGE_CONTACT "The cudasync authors")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "Runs GPU synchronization techniques (warp primitives, barriers, fences, locks,\n\
grid barriers, deadlocks) on an NVIDIA GPU, shows what every lane, warp or block\n\
did, checks the GPU against a CPU reference model, measures the cost beside\n\
NVIDIA's built-in and explains why. Without a GPU every lesson runs on the\n\
reference model. `cudasync doctor` says what this machine has and lacks.")
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
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "${recommends}")

include(CPack)
