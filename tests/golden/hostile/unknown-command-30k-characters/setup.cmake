# "unknown command '<word>'" echoed the whole 30,000-character word.
string(REPEAT "a" 30000 word)
list(APPEND args "${word}")
