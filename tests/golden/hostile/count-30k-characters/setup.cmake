# CLI11's "Could not convert: --count = <value>" echoed the whole 30,000-character value.
string(REPEAT "9" 30000 digits)
list(APPEND args "${digits}x")
