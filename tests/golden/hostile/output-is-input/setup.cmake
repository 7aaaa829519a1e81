# -o naming the catalog the same run reads: refused, the catalog left as it was.
file(COPY "${FIXTURES}/catalog/small.json" DESTINATION "${TMP}")
list(APPEND args --catalog "${TMP}/small.json" -o "${TMP}/small.json")
set(scrub "${TMP}")
