# One byte over the 256 MiB cap, as a sparse file: refused before it is read.
file(WRITE "${TMP}/big.json" "")
execute_process(COMMAND truncate -s 268435457 "${TMP}/big.json" RESULT_VARIABLE made)
if(NOT made EQUAL 0)
  message(FATAL_ERROR "truncate failed: ${made}")
endif()
list(APPEND args "${TMP}/big.json" catalog list)
set(scrub "${TMP}")
