#pragma once
// The JSON contract (schema/report-v2.json): one document per run, keys in a fixed order,
// schema_version first. Changing the shape means bumping kSchemaVersion and the schema file.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/device_info.hpp"
#include "core/report/report.hpp"

namespace cudasync::report {

// 2.1.0: tables may carry a picture; 2.2.0: graph; 2.3.0: tree
inline constexpr const char* kSchemaVersion = "2.3.0";

struct RunMeta {
  std::vector<std::string> argv;
  std::optional<DeviceInfo> device;  // the GPU the run used; null in JSON for model runs
  int driver_version = 0;
  int runtime_version = 0;
  std::string backend_requested = "auto";
  std::string backend_used;          // "gpu", "model", or "" for commands that use neither
  std::string backend_reason;
};

nlohmann::ordered_json device_json(const DeviceInfo& d, int driver_version, int runtime_version);
nlohmann::ordered_json report_json(const Report& report);
nlohmann::ordered_json document_json(const Report& report, const RunMeta& meta);
nlohmann::ordered_json error_document_json(const std::string& kind, const std::string& message, int exit_code,
                                           const RunMeta& meta);

}  // namespace cudasync::report
