# A FIFO with no writer: reading it would block forever.
execute_process(COMMAND mkfifo "${TMP}/gpus.json" RESULT_VARIABLE made)
if(NOT made EQUAL 0)
  message(FATAL_ERROR "mkfifo failed: ${made}")
endif()
list(APPEND args "${TMP}/gpus.json" catalog list)
set(scrub "${TMP}")
