# What `cmake --install` (and the .deb, cmake/package.cmake) puts where, by GNUInstallDirs:
#   bin/cudasync
#   share/man/man1/cudasync.1.gz                           generated (cmake/cli_docs.cmake), gzip -9n
#   share/bash-completion/completions/cudasync             generated; bash-completion looks there
#   share/zsh/vendor-completions/_cudasync  (prefix /usr)  generated; Debian's zsh fpath
#   share/zsh/site-functions/_cudasync      (other prefixes, e.g. /usr/local)
#   share/fish/vendor_completions.d/cudasync.fish          generated
#   share/cudasync/schema/                                 the --json schema
#   share/doc/cudasync/                                    README.md, LICENSE, NOTICE, measurements.md,
#                                                          lessons/<lesson>/{en,zh}.md and the kernel
#                                                          exercises' starters (*.cu), third-party/
include(GNUInstallDirs)

set(CUDASYNC_ZSH_COMPLETION_DIR "" CACHE STRING
    "Where the zsh completion goes, relative to the prefix (empty: share/zsh/vendor-completions for /usr, else share/zsh/site-functions)")

install(TARGETS cudasync RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

install(FILES "${CUDASYNC_CLI_DOCS_DIR}/cudasync.1.gz" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
install(FILES "${CUDASYNC_CLI_DOCS_DIR}/cudasync.bash" DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions"
        RENAME cudasync)
install(FILES "${CUDASYNC_CLI_DOCS_DIR}/cudasync.fish" DESTINATION "${CMAKE_INSTALL_DATAROOTDIR}/fish/vendor_completions.d")
# The zsh directory depends on the prefix, known only when installing (cpack installs for /usr).
install(CODE "
  set(_zsh_dir \"${CUDASYNC_ZSH_COMPLETION_DIR}\")
  if(NOT _zsh_dir)
    if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
      set(_zsh_dir \"${CMAKE_INSTALL_DATAROOTDIR}/zsh/vendor-completions\")
    else()
      set(_zsh_dir \"${CMAKE_INSTALL_DATAROOTDIR}/zsh/site-functions\")
    endif()
  endif()
  file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/\${_zsh_dir}\" TYPE FILE FILES \"${CUDASYNC_CLI_DOCS_DIR}/_cudasync\")
")

install(DIRECTORY "${PROJECT_SOURCE_DIR}/schema/" DESTINATION "${CMAKE_INSTALL_DATADIR}/cudasync/schema"
        FILES_MATCHING PATTERN "*.json")

set(doc_dir "${CMAKE_INSTALL_DATAROOTDIR}/doc/cudasync")
install(FILES "${PROJECT_SOURCE_DIR}/README.md" "${PROJECT_SOURCE_DIR}/LICENSE" "${PROJECT_SOURCE_DIR}/NOTICE"
              "${PROJECT_SOURCE_DIR}/docs/measurements.md"
        DESTINATION "${doc_dir}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/lessons/" DESTINATION "${doc_dir}/lessons" FILES_MATCHING PATTERN "*.md" PATTERN "*.cu")
# The notices of the header libraries compiled into the binary (NOTICE lists them), where this
# machine has them: Debian's copyright files.
foreach(pair "CLI11=libcli11-dev" "spdlog=libspdlog-dev" "fmt=libfmt-dev" "nlohmann-json=nlohmann-json3-dev")
  string(REPLACE "=" ";" pair "${pair}")
  list(GET pair 0 name)
  list(GET pair 1 package)
  if(EXISTS "/usr/share/doc/${package}/copyright")
    install(FILES "/usr/share/doc/${package}/copyright" DESTINATION "${doc_dir}/third-party" RENAME "${name}.copyright")
  endif()
endforeach()
