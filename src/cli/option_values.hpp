#pragma once
// One check of every value given on the command line, for all commands at once: a value
// that cannot mean anything is a usage error, never read as the default or as "nothing".
#include <CLI/CLI.hpp>

namespace gpusel::cli {

// Throws Error(usage) naming the option when, in the parsed commands, a given value is empty
// or blank; a number option's value is not a plain decimal (0x10, 1,5, fullwidth digits),
// not finite (nan, inf, 1e400) or negative; or a count that must be positive is 0; or -o names a file another option reads.
void check_given_values(const CLI::App& root);

}  // namespace gpusel::cli
