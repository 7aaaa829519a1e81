list(APPEND args -o "${TMP}/chart.svg")
set(scrub "${TMP}")
