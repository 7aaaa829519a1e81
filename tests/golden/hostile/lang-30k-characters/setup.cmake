# A 30,000-character locale names no region: the session currency falls back to USD.
string(REPEAT "a" 30000 lang)
set(env "LC_ALL=" "LANG=${lang}")
