// Every golden case that asks for JSON is checked against the published schema of its
// command (data/schema/output/<command>.schema.json) with gpusel's own validator, and every
// published schema must be exercised by at least one case.
//   output_schema_check SCHEMA_DIR GOLDEN_DIR
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "gpusel/base/error.hpp"
#include "gpusel/json/json_schema.hpp"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines(const fs::path& p) {
  std::vector<std::string> out;
  std::ifstream in(p);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The schema a command line's JSON follows: its command words ("catalog list" ->
// catalog-list), recommend --rent -> recommend-rent; "" when it does not ask for JSON.
std::string schema_for(const std::vector<std::string>& args) {
  static const std::set<std::string> valued{"--catalog", "--catalog-add", "--cloud", "--cloud-add",
                                            "--color"};
  std::string name;
  bool json = false, rent = false, in_command = true;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--format" && i + 1 < args.size()) json = args[i + 1] == "json";
    if (a == "--format=json") json = true;
    if (a == "--rent") rent = true;
    if (a.rfind("-", 0) == 0) {
      if (valued.count(a) && name.empty()) ++i;
      if (!name.empty()) in_command = false;
      continue;
    }
    if (in_command && (name.empty() || name == "catalog" || name == "models" || name == "cloud"))
      name += (name.empty() ? "" : "-") + a;
    else
      in_command = false;
  }
  if (!json) return "";
  return name == "recommend" && rent ? "recommend-rent" : name;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: output_schema_check SCHEMA_DIR GOLDEN_DIR\n";
    return 2;
  }
  const fs::path schemas = argv[1], golden = argv[2];
  std::map<std::string, int> checked;
  for (const auto& e : fs::directory_iterator(schemas))
    checked[e.path().filename().string().substr(0, e.path().filename().string().find('.'))] = 0;
  int failures = 0;
  for (const auto& e : fs::recursive_directory_iterator(golden)) {
    if (e.path().filename() != "cmd") continue;
    const fs::path dir = e.path().parent_path();
    const std::string name = schema_for(lines(e.path()));
    const std::string rc = slurp(dir / "expected.rc");
    if (name.empty() || (rc != "0\n" && rc != "1\n")) continue;
    const std::string rel = fs::relative(dir, golden).string();
    if (!checked.count(name)) {
      std::cout << "FAIL " << rel << ": no schema " << name << ".schema.json\n";
      ++failures;
      continue;
    }
    try {
      const auto schema = nlohmann::json::parse(slurp(schemas / (name + ".schema.json")));
      const auto doc = nlohmann::json::parse(slurp(dir / "expected.out"));
      const auto issues = gpusel::check_schema(schema, doc);
      for (const auto& i : issues)
        std::cout << "FAIL " << rel << ": " << i.pointer << ": " << i.message << "\n";
      failures += static_cast<int>(!issues.empty());
      ++checked[name];
    } catch (const std::exception& x) {
      std::cout << "FAIL " << rel << ": " << x.what() << "\n";
      ++failures;
    }
  }
  for (const auto& [name, n] : checked) {
    std::cout << name << ": " << n << " golden output(s) valid\n";
    if (n == 0) {
      std::cout << "FAIL " << name << ".schema.json: no golden case exercises it\n";
      ++failures;
    }
  }
  return failures ? 1 : 0;
}
