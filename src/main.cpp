#include "cli/app.hpp"

int main(int argc, char** argv) { return gpusel::cli::run(argc, argv); }
