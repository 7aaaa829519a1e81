# Runs one golden case of the real gpusel binary and compares stdout, stderr and the exit
# code with the files recorded beside it. Set GPUSEL_UPDATE_GOLDEN=1 to re-record.
#   case dir: cmd (arguments, one per line), expected.out, expected.err, expected.rc
#   optional: env (VAR=value lines set after the defaults, e.g. LANG=ja_JP.UTF-8, COLUMNS=80);
#   setup.cmake, included first: it may append to `args` (an argument a file line cannot
#   hold: 30,000 digits, control characters), to `env` (extra VAR=value entries), set `stdin`
#   (a file to read as standard input) and `scrub` (a text replaced by <TMP> in the output,
#   e.g. a temporary path); it runs with TMP set to a fresh scratch folder.
# Runs in tests/fixtures so paths in cmd and messages are relative and stable. Every case
# must end within 10 seconds (1 s is the target; sanitizer builds are slower).
file(STRINGS "${CASE}/cmd" args ENCODING UTF-8)
set(env "")
if(EXISTS "${CASE}/env")
  file(STRINGS "${CASE}/env" env ENCODING UTF-8)
endif()
set(stdin "")
set(scrub "")
get_filename_component(name "${CASE}" NAME)
get_filename_component(family "${CASE}" DIRECTORY)
get_filename_component(family "${family}" NAME)
set(TMP "${CMAKE_CURRENT_BINARY_DIR}/golden-tmp/${family}-${name}")
file(REMOVE_RECURSE "${TMP}")
file(MAKE_DIRECTORY "${TMP}")
if(EXISTS "${CASE}/setup.cmake")
  include("${CASE}/setup.cmake")
endif()
set(input_args "")
if(stdin)
  set(input_args INPUT_FILE "${stdin}")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env --unset=GPUSEL_CATALOG --unset=GPUSEL_CLOUD --unset=GPUSEL_CURRENCY
          --unset=LC_MONETARY --unset=LANGUAGE --unset=COLUMNS NO_COLOR=1 LC_ALL=C.UTF-8
          LANG=C.UTF-8 ${env} ${BIN} ${args}
  WORKING_DIRECTORY "${FIXTURES}"
  ${input_args}
  TIMEOUT 10
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
file(REMOVE_RECURSE "${TMP}")
if(scrub)
  string(REPLACE "${scrub}" "<TMP>" out "${out}")
  string(REPLACE "${scrub}" "<TMP>" err "${err}")
endif()
if(DEFINED ENV{GPUSEL_UPDATE_GOLDEN})
  file(WRITE "${CASE}/expected.out" "${out}")
  file(WRITE "${CASE}/expected.err" "${err}")
  file(WRITE "${CASE}/expected.rc" "${rc}\n")
  return()
endif()
file(READ "${CASE}/expected.out" want_out)
file(READ "${CASE}/expected.err" want_err)
file(STRINGS "${CASE}/expected.rc" want_rc)
set(failed "")
if(NOT rc STREQUAL want_rc)
  string(APPEND failed "exit code ${rc}, expected ${want_rc}\n")
endif()
if(NOT out STREQUAL want_out)
  file(WRITE "${CASE}/actual.out" "${out}")
  string(APPEND failed "stdout differs: diff ${CASE}/expected.out ${CASE}/actual.out\n")
endif()
if(NOT err STREQUAL want_err)
  string(APPEND failed "stderr differs:\n--- expected\n${want_err}--- actual\n${err}")
endif()
if(failed)
  message(FATAL_ERROR "golden case ${CASE}:\n${failed}")
endif()
