# The input must still be the catalog, untouched.
file(READ "${TMP}/small.json" after)
file(READ "${FIXTURES}/catalog/small.json" before)
if(after STREQUAL before)
  string(APPEND out "input unchanged\n")
else()
  string(APPEND out "input CHANGED\n")
endif()
