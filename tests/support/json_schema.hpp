#pragma once
// A small JSON Schema (draft 2020-12) validator for the tests of the --json contract
// (schema/report-v1.json). No third-party validator is available where the tests build, so this
// one supports exactly the keywords that schema uses and refuses any other: a schema cannot
// silently rely on a keyword nobody checks.
//
// Supported: type (a name or an array of names; "integer" is any number with no fractional
// part), properties, required, additionalProperties (bool or schema), items (one schema for all
// items), enum, const, pattern (std::regex ECMAScript, unanchored as the spec says), minimum,
// minItems, oneOf, anyOf, and $ref to "#/$defs/NAME" (siblings of $ref apply too, as in
// 2020-12). Annotations ($schema, $id, $comment, title, description) and $defs are accepted.
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cudasync::test {

struct SchemaError {
  std::string path;         // JSON pointer into the instance: "" is the root, "/report/sections/0/id"
  std::string schema_path;  // where the failing keyword is: "#/$defs/row/properties/mark/enum"
  std::string message;
};

class JsonSchema {
 public:
  // Checks the schema itself: throws std::invalid_argument on an unsupported keyword, a $ref that
  // does not resolve, a malformed keyword value, or a pattern std::regex cannot compile.
  explicit JsonSchema(nlohmann::ordered_json schema);
  static JsonSchema from_file(const std::string& path);

  // Every violation found (keywords in schema order); empty when the instance is valid.
  std::vector<SchemaError> validate(const nlohmann::ordered_json& instance) const;

  const nlohmann::ordered_json& schema() const { return schema_; }

 private:
  void check_schema(const nlohmann::ordered_json& s, const std::string& where);
  void validate_at(const nlohmann::ordered_json& s, const std::string& schema_path,
                   const nlohmann::ordered_json& instance, const std::string& path, std::vector<SchemaError>& errors,
                   int depth) const;
  const nlohmann::ordered_json& resolve(const std::string& ref) const;

  nlohmann::ordered_json schema_;
  std::map<std::string, std::regex> patterns_;  // compiled once, keyed by pattern text
};

// JSON pointer escaping of one reference token: "~" -> "~0", "/" -> "~1".
std::string json_pointer_token(const std::string& key);

// One line per error ("/report/sections/0: missing required key \"id\" (at #/$defs/section/required)"),
// for test failure messages.
std::string to_string(const std::vector<SchemaError>& errors);

// JSON equality as JSON Schema defines it for enum and const: numbers compare by value (1 == 1.0),
// objects ignore key order.
bool json_equal(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b);

}  // namespace cudasync::test
