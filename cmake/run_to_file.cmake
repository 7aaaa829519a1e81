# Runs the freshly built gpusel and keeps what it prints: the man page and the completion
# scripts are written by the binary itself from its command tree.
#   cmake -DBIN=<gpusel> -DARGS=<a;b> -DOUT=<file> -P run_to_file.cmake
execute_process(COMMAND ${BIN} ${ARGS} OUTPUT_FILE ${OUT}.tmp RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${BIN} ${ARGS} failed (${rc})")
endif()
file(RENAME ${OUT}.tmp ${OUT})
