# CLI11's "Could not convert: --count = <value>" echoed the whole 30,000-character value
# (now "--count '999...' is not a whole number", the value clipped to 32 characters).
string(REPEAT "9" 30000 digits)
list(APPEND args "${digits}x")
