string(ASCII 12 ff)
string(ASCII 10 nl)
list(APPEND args "${ff}1${nl}${ff}1")
