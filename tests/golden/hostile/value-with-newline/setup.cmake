# A newline (and an escape sequence) inside a value: the error stays one line, escaped.
string(ASCII 10 27 nl_esc)
list(APPEND args "bf16${nl_esc}]0;title")
