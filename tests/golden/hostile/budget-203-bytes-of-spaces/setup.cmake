# 100 spaces, 1, 100 spaces, 1: took 16 s through std::regex.
string(REPEAT " " 100 spaces)
list(APPEND args "${spaces}1${spaces}1")
