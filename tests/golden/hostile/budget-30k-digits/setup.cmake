string(REPEAT "9" 30000 digits)
list(APPEND args "${digits}")
