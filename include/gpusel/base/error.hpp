#pragma once
// The one error type of gpusel. Core code throws it; the CLI catches it once at the
// top, prints "gpusel: error: <what>" and exits with its code.
#include <stdexcept>
#include <string>

namespace gpusel {

enum class ExitCode : int {
  ok = 0,
  negative = 1,  // a valid question with a "no" answer: nothing fits, validation failed
  usage = 2,     // a bad flag or value on the command line
  data = 3,      // unreadable or invalid input data (catalog, rules, models)
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

inline Error usage_error(const std::string& what) { return Error(ExitCode::usage, what); }
inline Error data_error(const std::string& what) { return Error(ExitCode::data, what); }

}  // namespace gpusel
