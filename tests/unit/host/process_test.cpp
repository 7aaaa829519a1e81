// run_tool: a fixed argv found on PATH, never a shell; a time limit; capped output.
#include "gpusel/host/process.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace gpusel;

namespace {

// A folder of scripts put alone on PATH for the life of the object.
struct FakePath {
  std::filesystem::path dir;
  std::string saved;
  FakePath() {
    char tmpl[] = "/tmp/gpusel-path-XXXXXX";
    dir = ::mkdtemp(tmpl);
    const char* p = std::getenv("PATH");
    saved = p ? p : "";
    ::setenv("PATH", dir.c_str(), 1);
  }
  ~FakePath() {
    ::setenv("PATH", saved.c_str(), 1);
    std::filesystem::remove_all(dir);
  }
  void script(const std::string& name, const std::string& body) {
    const auto path = dir / name;
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    ::chmod(path.c_str(), 0755);
  }
};

}  // namespace

TEST_CASE("a tool not on PATH is reported as not found, and nothing runs") {
  FakePath p;
  const ToolResult r = run_tool({"nvidia-smi", "-L"});
  CHECK_FALSE(r.found);
  CHECK_FALSE(r.started);
  CHECK(find_on_path("nvidia-smi").empty());
  CHECK(find_on_path("../bin/sh").empty());  // a name with a slash is never looked up
}

TEST_CASE("arguments reach the tool as they are, without a shell reading them") {
  FakePath p;
  p.script("echoargs",
           "for a in \"$@\"; do printf '[%s]' \"$a\"; done; echo; echo err >&2; exit 3");
  const ToolResult r = run_tool({"echoargs", "a b", "$(touch /tmp/x)", "; rm -rf /"});
  CHECK(r.found);
  CHECK(r.started);
  CHECK(r.exit_code == 3);
  CHECK_FALSE(r.ok());
  CHECK(r.out == "[a b][$(touch /tmp/x)][; rm -rf /]\n");
  CHECK(r.err == "err\n");
}

TEST_CASE("a tool that hangs is killed at the time limit") {
  FakePath p;
  p.script("hang", "exec /bin/sleep 30");
  const auto t0 = std::chrono::steady_clock::now();
  const ToolResult r = run_tool({"hang"}, {std::chrono::milliseconds(200), 1 << 20});
  const auto took = std::chrono::steady_clock::now() - t0;
  CHECK(r.timed_out);
  CHECK_FALSE(r.ok());
  CHECK(took < std::chrono::seconds(5));
}

TEST_CASE("output beyond the cap is dropped, and the tool still finishes") {
  FakePath p;
  p.script("chatty",
           "i=0; while [ $i -lt 2000 ]; do echo 0123456789012345678901234567890123456789; "
           "i=$((i+1)); done");
  const ToolResult r = run_tool({"chatty"}, {std::chrono::seconds(10), 1000});
  CHECK(r.ok());
  CHECK(r.truncated);
  CHECK(r.out.size() == 1000);
}

TEST_CASE("stdin is closed: a tool waiting for input sees end of file") {
  FakePath p;
  p.script("reader", "read line; echo \"got:$line\"");
  const ToolResult r = run_tool({"reader"}, {std::chrono::seconds(5), 1 << 20});
  CHECK(r.ok());
  CHECK(r.out == "got:\n");
}

TEST_CASE("the system runner asks a tool that timed out only once") {
  FakePath p;
  const auto count = p.dir / "calls";
  p.script("hang", "echo x >> '" + count.string() + "'; exec /bin/sleep 30");
  const ToolRunner run = system_runner();
  const ToolResult first = run({"hang", "--query"});
  CHECK(first.timed_out);
  const ToolResult second = run({"hang"});  // doctor's second nvidia-smi call
  CHECK(second.timed_out);
  CHECK_FALSE(second.ok());
  std::ifstream in(count);
  std::string line;
  int calls = 0;
  while (std::getline(in, line)) ++calls;
  CHECK(calls == 1);
}

TEST_CASE("a tool killed by a signal says which") {
  FakePath p;
  p.script("crash", "kill -SEGV $$");
  const ToolResult r = run_tool({"crash"});
  CHECK(r.started);
  CHECK_FALSE(r.ok());
  CHECK(r.signal == 11);
  CHECK(r.exit_code == -1);
}
