#include "support/json_schema.hpp"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <set>
#include <stdexcept>
#include <utility>

namespace cudasync::test {

using json = nlohmann::ordered_json;

namespace {

constexpr const char* kDraft = "https://json-schema.org/draft/2020-12/schema";
constexpr const char* kRefPrefix = "#/$defs/";
// A $ref chain deeper than this is a cycle ({"$ref": "#/$defs/a"} inside a): stop, don't overflow.
constexpr int kMaxDepth = 128;

// Keywords that only describe: accepted anywhere, never checked.
const std::set<std::string> kAnnotations = {"$id", "$comment", "title", "description"};
const std::set<std::string> kTypeNames = {"null", "boolean", "object", "array", "number", "integer", "string"};

[[noreturn]] void bad_schema(const std::string& where, const std::string& what) {
  throw std::invalid_argument("JSON schema " + where + ": " + what);
}

bool is_integer(const json& j) {
  if (j.is_number_integer()) return true;  // signed and unsigned
  if (!j.is_number_float()) return false;
  const double d = j.get<double>();
  return std::isfinite(d) && std::floor(d) == d;  // 2020-12: 1.0 is an integer
}

bool has_type(const json& j, const std::string& type) {
  if (type == "null") return j.is_null();
  if (type == "boolean") return j.is_boolean();
  if (type == "object") return j.is_object();
  if (type == "array") return j.is_array();
  if (type == "number") return j.is_number();
  if (type == "integer") return is_integer(j);
  return j.is_string();
}

std::string type_of(const json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "boolean";
  if (j.is_object()) return "object";
  if (j.is_array()) return "array";
  if (j.is_string()) return "string";
  return is_integer(j) ? "integer" : "number";
}

// Values quoted in messages: short enough to read in a test failure.
std::string shown(const json& j) {
  std::string s = j.dump();
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

bool is_schema(const json& s) { return s.is_object() || s.is_boolean(); }

}  // namespace

std::string json_pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

bool json_equal(const json& a, const json& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_number_float() || b.is_number_float()) return a.get<double>() == b.get<double>();
    return a == b;  // nlohmann compares signed with unsigned by value
  }
  if (a.type() != b.type()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!json_equal(a[i], b[i])) return false;
    return true;
  }
  if (a.is_object()) {
    // ordered_json's own == would also compare key order, which JSON does not give meaning to.
    if (a.size() != b.size()) return false;
    for (const auto& [key, value] : a.items()) {
      const auto it = b.find(key);
      if (it == b.end() || !json_equal(value, *it)) return false;
    }
    return true;
  }
  return a == b;
}

std::string to_string(const std::vector<SchemaError>& errors) {
  std::string s;
  for (const auto& e : errors)
    s += (e.path.empty() ? std::string("(root)") : e.path) + ": " + e.message + " (at " + e.schema_path + ")\n";
  return s;
}

JsonSchema::JsonSchema(json schema) : schema_(std::move(schema)) {
  if (!schema_.is_object()) bad_schema("#", "the root must be an object");
  if (schema_.contains("$schema") && schema_["$schema"] != kDraft)
    bad_schema("#/$schema", "only draft 2020-12 (" + std::string(kDraft) + ") is supported");
  if (schema_.contains("$defs")) {
    if (!schema_["$defs"].is_object()) bad_schema("#/$defs", "must be an object");
    for (const auto& [name, def] : schema_["$defs"].items())
      check_schema(def, "#/$defs/" + json_pointer_token(name));
  }
  check_schema(schema_, "#");
}

JsonSchema JsonSchema::from_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read " + path);
  return JsonSchema(json::parse(f));
}

// Walks one (sub)schema: every keyword must be one this validator implements, with a value of the
// right shape. Subschemas are checked recursively; $defs only at the root, where $ref looks.
void JsonSchema::check_schema(const json& s, const std::string& where) {
  if (s.is_boolean()) return;
  if (!s.is_object()) bad_schema(where, "a schema must be an object or a boolean, not " + shown(s));
  for (const auto& [key, value] : s.items()) {
    const std::string at = where + "/" + json_pointer_token(key);
    if (kAnnotations.count(key)) continue;
    if (key == "$schema" || key == "$defs") {
      if (where != "#") bad_schema(at, key + " is supported at the root only");
      continue;  // checked by the constructor
    }
    if (key == "type") {
      const json names = value.is_array() ? value : json::array({value});
      if (names.empty()) bad_schema(at, "needs at least one type name");
      for (const auto& n : names)
        if (!n.is_string() || !kTypeNames.count(n.get<std::string>())) bad_schema(at, "unknown type " + shown(n));
    } else if (key == "properties") {
      if (!value.is_object()) bad_schema(at, "must be an object");
      for (const auto& [name, sub] : value.items()) check_schema(sub, at + "/" + json_pointer_token(name));
    } else if (key == "required") {
      if (!value.is_array()) bad_schema(at, "must be an array of key names");
      for (const auto& n : value)
        if (!n.is_string()) bad_schema(at, "must be an array of key names");
    } else if (key == "additionalProperties" || key == "items") {
      // 2020-12 items takes one schema; the array form is prefixItems, which is not supported.
      if (!is_schema(value)) bad_schema(at, "must be a schema (an object or a boolean)");
      check_schema(value, at);
    } else if (key == "enum") {
      if (!value.is_array()) bad_schema(at, "must be an array");
    } else if (key == "const") {
      // any value
    } else if (key == "pattern") {
      if (!value.is_string()) bad_schema(at, "must be a string");
      const std::string text = value.get<std::string>();
      try {
        patterns_.emplace(text, std::regex(text, std::regex::ECMAScript));
      } catch (const std::regex_error& e) {
        bad_schema(at, "std::regex cannot compile " + shown(value) + ": " + e.what());
      }
    } else if (key == "minimum") {
      if (!value.is_number()) bad_schema(at, "must be a number");
    } else if (key == "minItems") {
      if (!value.is_number_integer() || value.get<std::int64_t>() < 0) bad_schema(at, "must be a non-negative integer");
    } else if (key == "oneOf" || key == "anyOf") {
      if (!value.is_array() || value.empty()) bad_schema(at, "must be a non-empty array of schemas");
      for (std::size_t i = 0; i < value.size(); ++i) check_schema(value[i], at + "/" + std::to_string(i));
    } else if (key == "$ref") {
      if (!value.is_string()) bad_schema(at, "must be a string");
      resolve(value.get<std::string>());  // throws when it does not resolve
    } else {
      bad_schema(at, "unsupported keyword \"" + key + "\" (tests/support/json_schema.cpp implements only: type, "
                     "properties, required, additionalProperties, items, enum, const, pattern, minimum, minItems, "
                     "oneOf, anyOf, $ref)");
    }
  }
}

const json& JsonSchema::resolve(const std::string& ref) const {
  const std::string prefix = kRefPrefix;
  if (ref.rfind(prefix, 0) != 0) bad_schema(ref, "only $ref to \"#/$defs/NAME\" is supported");
  const std::string name = ref.substr(prefix.size());
  if (name.empty() || name.find_first_of("/~%") != std::string::npos)
    bad_schema(ref, "only $ref to \"#/$defs/NAME\" with a plain NAME is supported");
  const auto defs = schema_.find("$defs");
  if (defs == schema_.end() || !defs->contains(name)) bad_schema(ref, "$ref does not resolve");
  return (*defs)[name];
}

std::vector<SchemaError> JsonSchema::validate(const json& instance) const {
  std::vector<SchemaError> errors;
  validate_at(schema_, "#", instance, "", errors, 0);
  return errors;
}

void JsonSchema::validate_at(const json& s, const std::string& spath, const json& inst, const std::string& path,
                             std::vector<SchemaError>& errors, int depth) const {
  if (depth > kMaxDepth) throw std::invalid_argument("JSON schema " + spath + ": $ref nesting too deep (a cycle?)");
  const auto fail = [&](const std::string& keyword, const std::string& message) {
    errors.push_back({path, spath + (keyword.empty() ? "" : "/" + keyword), message});
  };
  if (s.is_boolean()) {
    if (!s.get<bool>()) fail("", "no value is allowed here");
    return;
  }

  // Runs a list of alternatives (anyOf, oneOf); returns the indices that matched, and each
  // mismatch's errors folded into `why` so that the failure says what each alternative wanted.
  const auto try_each = [&](const std::string& keyword, std::string& why) {
    std::vector<std::size_t> matched;
    const json& alternatives = s[keyword];
    for (std::size_t i = 0; i < alternatives.size(); ++i) {
      std::vector<SchemaError> sub;
      const std::string alt_path = spath + "/" + keyword + "/" + std::to_string(i);
      validate_at(alternatives[i], alt_path, inst, path, sub, depth + 1);
      if (sub.empty()) {
        matched.push_back(i);
      } else {
        why += "\n    alternative " + std::to_string(i) + ":";
        for (const auto& e : sub) why += "\n      " + (e.path.empty() ? "(root)" : e.path) + ": " + e.message;
      }
    }
    return matched;
  };

  for (const auto& [key, value] : s.items()) {
    if (key == "$ref") {
      const std::string ref = value.get<std::string>();
      validate_at(resolve(ref), ref, inst, path, errors, depth + 1);
    } else if (key == "type") {
      const json names = value.is_array() ? value : json::array({value});
      bool ok = false;
      for (const auto& n : names) ok = ok || has_type(inst, n.get<std::string>());
      if (!ok) fail(key, "expected type " + shown(value) + ", got " + type_of(inst) + " " + shown(inst));
    } else if (key == "enum") {
      bool ok = false;
      for (const auto& candidate : value) ok = ok || json_equal(inst, candidate);
      if (!ok) fail(key, shown(inst) + " is not one of " + shown(value));
    } else if (key == "const") {
      if (!json_equal(inst, value)) fail(key, shown(inst) + " is not " + shown(value));
    } else if (key == "pattern") {
      if (inst.is_string() && !std::regex_search(inst.get<std::string>(), patterns_.at(value.get<std::string>())))
        fail(key, shown(inst) + " does not match the pattern " + shown(value));
    } else if (key == "minimum") {
      if (inst.is_number() && inst.get<double>() < value.get<double>())
        fail(key, shown(inst) + " is less than the minimum " + shown(value));
    } else if (key == "minItems") {
      if (inst.is_array() && inst.size() < value.get<std::size_t>())
        fail(key, "array has " + std::to_string(inst.size()) + " items, fewer than " + shown(value));
    } else if (key == "required") {
      if (!inst.is_object()) continue;
      for (const auto& name : value)
        if (!inst.contains(name.get<std::string>())) fail(key, "missing required key " + shown(name));
    } else if (key == "properties") {
      if (!inst.is_object()) continue;
      for (const auto& [name, sub] : value.items()) {
        const auto it = inst.find(name);
        if (it == inst.end()) continue;
        const std::string token = json_pointer_token(name);
        validate_at(sub, spath + "/properties/" + token, *it, path + "/" + token, errors, depth + 1);
      }
    } else if (key == "additionalProperties") {
      if (!inst.is_object()) continue;
      const auto props = s.find("properties");
      for (const auto& [name, sub_inst] : inst.items()) {
        if (props != s.end() && props->contains(name)) continue;
        const std::string sub_path = path + "/" + json_pointer_token(name);
        if (value.is_boolean() && !value.get<bool>()) {
          // Say which key is unexpected; the generic "no value is allowed here" would not.
          errors.push_back({sub_path, spath + "/additionalProperties", "unexpected key " + shown(json(name))});
        } else {
          validate_at(value, spath + "/additionalProperties", sub_inst, sub_path, errors, depth + 1);
        }
      }
    } else if (key == "items") {
      if (!inst.is_array()) continue;
      for (std::size_t i = 0; i < inst.size(); ++i)
        validate_at(value, spath + "/items", inst[i], path + "/" + std::to_string(i), errors, depth + 1);
    } else if (key == "anyOf") {
      std::string why;
      if (try_each(key, why).empty())
        fail(key, "matches none of the " + std::to_string(value.size()) + " anyOf alternatives:" + why);
    } else if (key == "oneOf") {
      std::string why;
      const auto matched = try_each(key, why);
      if (matched.empty()) {
        fail(key, "matches none of the " + std::to_string(value.size()) + " oneOf alternatives:" + why);
      } else if (matched.size() > 1) {
        std::string list;
        for (auto i : matched) list += (list.empty() ? "" : ", ") + std::to_string(i);
        fail(key, "matches " + std::to_string(matched.size()) + " oneOf alternatives (" + list +
                      "); exactly one must match");
      }
    }
    // Anything else is an annotation ($schema, $id, $defs, title, ...): check_schema let nothing
    // unsupported through.
  }
}

}  // namespace cudasync::test
