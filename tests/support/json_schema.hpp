#pragma once
// The --json contract's validator for the tests: schema/report-v2.json checked by Debian's
// python3-jsonschema (tests/support/validate_json.py), a maintained draft 2020-12 validator.
#include <string>

#include <nlohmann/json.hpp>

namespace cudasync::test {

// One line per violation of `doc` against the schema (or against its $defs/`def`), "" when the
// document is valid. A schema that is itself invalid is reported as an error too.
std::string schema_errors(const nlohmann::ordered_json& doc, const std::string& def = "");

}  // namespace cudasync::test
