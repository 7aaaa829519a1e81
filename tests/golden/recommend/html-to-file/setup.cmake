list(APPEND args -o "${TMP}/report.html")
set(scrub "${TMP}")
