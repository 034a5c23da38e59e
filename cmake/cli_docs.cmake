# The man page and the bash, zsh and fish completions, generated at build time from the command
# line's own definition (`cudasync --cli-spec`) by cudasync-clidocs (src/clidocs): a new command or
# option appears in all four without an edit. They land in <build>/cli-docs/ (cudasync.1,
# cudasync.bash, _cudasync, cudasync.fish, and the spec itself, cli-spec.json); cmake/install.cmake
# installs them.
set(CUDASYNC_CLI_DOCS_DIR "${CMAKE_BINARY_DIR}/cli-docs")

function(cudasync_cli_docs binary_target)
  set(dir "${CUDASYNC_CLI_DOCS_DIR}")
  set(outputs "${dir}/cli-spec.json" "${dir}/cudasync.1" "${dir}/cudasync.bash" "${dir}/_cudasync"
              "${dir}/cudasync.fish")
  add_custom_command(OUTPUT ${outputs}
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${dir}"
    COMMAND cudasync_clidocs --binary "$<TARGET_FILE:${binary_target}>" --out "${dir}"
    DEPENDS ${binary_target} cudasync_clidocs
    COMMENT "Generating the man page and the shell completions from cudasync --cli-spec"
    VERBATIM)
  # Installed compressed, as Debian policy asks of man pages (12.1): gzip -9n, no name or time in
  # the header, so that the same page gives the same bytes.
  find_program(CUDASYNC_GZIP gzip REQUIRED)
  add_custom_command(OUTPUT "${dir}/cudasync.1.gz"
    COMMAND "${CUDASYNC_GZIP}" -9nkf "${dir}/cudasync.1"
    DEPENDS "${dir}/cudasync.1"
    COMMENT "Compressing the man page"
    VERBATIM)
  add_custom_target(cudasync_cli_docs ALL DEPENDS ${outputs} "${dir}/cudasync.1.gz")
endfunction()
