#pragma once
// Shared by the per-document semantic checks (validate_gpus.cpp, validate_cloud.cpp).
#include "gpusel/data/validate.hpp"

namespace gpusel::detail {

// Collects findings for one document, locating each pointer in the source text.
class Findings {
 public:
  Findings(const LocatedJson& src, std::string file, ValidationReport& report)
      : src_(src), file_(std::move(file)), report_(report) {}
  void add(Severity s, const std::string& pointer, const std::string& check,
           const std::string& message);
  void error(const std::string& ptr, const std::string& check, const std::string& msg) {
    add(Severity::error, ptr, check, msg);
  }
  void warning(const std::string& ptr, const std::string& check, const std::string& msg) {
    add(Severity::warning, ptr, check, msg);
  }
  void note(const std::string& ptr, const std::string& check, const std::string& msg) {
    add(Severity::note, ptr, check, msg);
  }

 private:
  const LocatedJson& src_;
  std::string file_;
  ValidationReport& report_;
};

// The date prices are aged against: options.as_of, or the document's "reviewed" date.
std::string effective_as_of(const nlohmann::json& doc, const ValidateOptions& options);

void check_gpu_semantics(const nlohmann::json& doc, const std::string& as_of, Findings& f);
void check_cloud_semantics(const nlohmann::json& doc, const std::string& as_of, const Catalog* gpus,
                           Findings& f);
void check_platform_semantics(const nlohmann::json& doc, const std::string& as_of, Findings& f);
void check_unique_ids(const nlohmann::json& list, const std::string& list_ptr, Findings& f);

}  // namespace gpusel::detail
