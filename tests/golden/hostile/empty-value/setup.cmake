# A value of spaces only (a script's unset variable, quoted): a usage error, not the default.
list(APPEND args "   ")
