# "unknown format '<value>'" echoed the whole 30,000-character value.
string(REPEAT "a" 30000 word)
list(APPEND args "${word}")
