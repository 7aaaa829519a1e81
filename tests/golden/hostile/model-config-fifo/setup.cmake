# A FIFO with no writer as --model-config: reading it would block forever.
execute_process(COMMAND mkfifo "${TMP}/config.json" RESULT_VARIABLE made)
if(NOT made EQUAL 0)
  message(FATAL_ERROR "mkfifo failed: ${made}")
endif()
list(APPEND args "${TMP}/config.json")
set(scrub "${TMP}")
