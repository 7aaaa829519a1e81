# Runs one golden case of the real gpusel binary and compares stdout, stderr and the exit
# code with the files recorded beside it. Set GPUSEL_UPDATE_GOLDEN=1 to re-record.
#   case dir: cmd (arguments, one per line), expected.out, expected.err, expected.rc, and
#   optionally env (VAR=value lines set after the defaults, e.g. LANG=ja_JP.UTF-8, COLUMNS=80)
# Runs in tests/fixtures so paths in cmd and messages are relative and stable.
file(STRINGS "${CASE}/cmd" args ENCODING UTF-8)
set(case_env "")
if(EXISTS "${CASE}/env")
  file(STRINGS "${CASE}/env" case_env ENCODING UTF-8)
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env --unset=GPUSEL_CATALOG --unset=GPUSEL_CLOUD --unset=GPUSEL_CURRENCY
          --unset=LC_MONETARY --unset=LANGUAGE --unset=COLUMNS NO_COLOR=1 LC_ALL=C.UTF-8
          LANG=C.UTF-8 ${case_env} ${BIN} ${args}
  WORKING_DIRECTORY "${FIXTURES}"
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
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
