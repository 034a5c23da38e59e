// The test validator itself (tests/support/json_schema.*): what it accepts, what it rejects and
// where it says the problem is. The --json contract tests trust it, so it is tested on its own.
#include "support/json_schema.hpp"

#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace cudasync::test {
namespace {

using json = nlohmann::ordered_json;

// A schema shaped like the report contract in miniature: a fixed object with a table of rows.
json sample_schema() {
  return json::parse(R"({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "urn:test:sample",
    "title": "sample",
    "type": "object",
    "properties": {
      "version": { "type": "string", "pattern": "^[0-9]+\\.[0-9]+\\.[0-9]+$" },
      "count": { "type": "integer", "minimum": 0 },
      "mode": { "enum": ["a", "b", null] },
      "rows": { "type": "array", "items": { "$ref": "#/$defs/row" }, "minItems": 1 },
      "device": { "anyOf": [{ "type": "null" }, { "$ref": "#/$defs/device" }] },
      "error": { "$ref": "#/$defs/error" }
    },
    "required": ["version", "count", "rows"],
    "additionalProperties": false,
    "$defs": {
      "row": {
        "type": "object",
        "properties": { "mark": { "enum": ["none", "inactive"] } },
        "required": ["mark"],
        "additionalProperties": { "type": ["integer", "number", "string", "null"] }
      },
      "device": {
        "type": "object",
        "properties": { "name": { "type": "string" } },
        "required": ["name"],
        "additionalProperties": false
      },
      "error": {
        "type": "object",
        "properties": { "kind": { "type": "string" }, "code": { "type": "integer" } },
        "required": ["kind", "code"],
        "oneOf": [
          { "properties": { "kind": { "const": "usage" }, "code": { "const": 2 } } },
          { "properties": { "kind": { "const": "no_gpu" }, "code": { "const": 3 } } }
        ]
      }
    }
  })");
}

json valid_document() {
  return json::parse(R"({
    "version": "1.0.0",
    "count": 3,
    "mode": null,
    "rows": [ { "lane": 0, "value": 2.5, "name": "x", "missing": null, "mark": "none" },
              { "mark": "inactive" } ],
    "device": { "name": "GPU" },
    "error": { "kind": "usage", "code": 2 }
  })");
}

// The one error a broken document must produce, at `path`, from the keyword that ends `keyword`.
void expect_one_error(const std::vector<SchemaError>& errors, const std::string& path, const std::string& keyword) {
  ASSERT_EQ(errors.size(), 1u) << to_string(errors);
  EXPECT_EQ(errors[0].path, path) << to_string(errors);
  const std::string& sp = errors[0].schema_path;
  EXPECT_TRUE(sp.size() >= keyword.size() && sp.compare(sp.size() - keyword.size(), keyword.size(), keyword) == 0)
      << "schema path " << sp << " does not end with " << keyword;
  EXPECT_FALSE(errors[0].message.empty());
}

TEST(JsonSchema, ValidDocumentPasses) {
  const JsonSchema schema(sample_schema());
  const auto errors = schema.validate(valid_document());
  EXPECT_TRUE(errors.empty()) << to_string(errors);
}

TEST(JsonSchema, OptionalKeysMayBeAbsent) {
  const JsonSchema schema(sample_schema());
  json doc = valid_document();
  doc.erase("mode");
  doc.erase("device");
  doc.erase("error");
  EXPECT_TRUE(schema.validate(doc).empty()) << to_string(schema.validate(doc));
}

TEST(JsonSchema, MissingRequiredKeyIsReportedOnItsObject) {
  const JsonSchema schema(sample_schema());
  json doc = valid_document();
  doc["rows"][1].erase("mark");
  const auto errors = schema.validate(doc);
  expect_one_error(errors, "/rows/1", "/required");
  EXPECT_NE(errors[0].message.find("\"mark\""), std::string::npos) << errors[0].message;
}

TEST(JsonSchema, MissingRequiredKeyAtTheRoot) {
  const JsonSchema schema(sample_schema());
  json doc = valid_document();
  doc.erase("version");
  expect_one_error(schema.validate(doc), "", "#/required");
}

TEST(JsonSchema, WrongTypeIsReportedAtTheValue) {
  const JsonSchema schema(sample_schema());
  json doc = valid_document();
  doc["count"] = "3";
  expect_one_error(schema.validate(doc), "/count", "/properties/count/type");
}

TEST(JsonSchema, IntegerMeansNoFractionalPart) {
  const JsonSchema schema(sample_schema());
  json doc = valid_document();
  doc["count"] = 3.0;  // JSON Schema: an integer, though written as a float
  EXPECT_TRUE(schema.validate(doc).empty()) << to_string(schema.validate(doc));
  doc["count"] = 3.5;
  expect_one_error(schema.validate(doc), "/count", "/type");
  doc["count"] = true;  // a boolean is not a number
  expect_one_error(schema.validate(doc), "/count", "/type");
}

TEST(JsonSchema, TypeArrayAcceptsAnyListedType) {
  const JsonSchema schema(sample_schema());
  json doc = valid_document();
  doc["rows"][0]["value"] = json::array();
  expect_one_error(schema.validate(doc), "/rows/0/value", "#/$defs/row/additionalProperties/type");
  doc["rows"][0]["value"] = json::object();
  expect_one_error(schema.validate(doc), "/rows/0/value", "/type");
}

TEST(JsonSchema, ExtraKeyIsReportedAtTheKey) {
  const JsonSchema schema(sample_schema());
  json doc = valid_document();
  doc["extra"] = 1;
  const auto errors = schema.validate(doc);
  expect_one_error(errors, "/extra", "#/additionalProperties");
  EXPECT_NE(errors[0].message.find("\"extra\""), std::string::npos) << errors[0].message;
}

TEST(JsonSchema, ExtraKeyInsideARefdSchema) {
  const JsonSchema schema(sample_schema());
  json doc = valid_document();
  doc["device"]["sm_count"] = 132;
  // The device sits under anyOf: the anyOf fails at /device and its message names the extra key.
  const auto errors = schema.validate(doc);
  expect_one_error(errors, "/device", "/properties/device/anyOf");
  EXPECT_NE(errors[0].message.find("/device/sm_count"), std::string::npos) << errors[0].message;
}

TEST(JsonSchema, BadEnumValue) {
  const JsonSchema schema(sample_schema());
  json doc = valid_document();
  doc["rows"][0]["mark"] = "mismatched";
  expect_one_error(schema.validate(doc), "/rows/0/mark", "#/$defs/row/properties/mark/enum");
  doc = valid_document();
  doc["mode"] = "c";
  expect_one_error(schema.validate(doc), "/mode", "/enum");
}

TEST(JsonSchema, EnumMayHoldNull) {
  const JsonSchema schema(sample_schema());
  json doc = valid_document();
  doc["mode"] = "b";
  EXPECT_TRUE(schema.validate(doc).empty());
  doc["mode"] = nullptr;
  EXPECT_TRUE(schema.validate(doc).empty());
}

TEST(JsonSchema, BadPattern) {
  const JsonSchema schema(sample_schema());
  json doc = valid_document();
  doc["version"] = "1.0";
  expect_one_error(schema.validate(doc), "/version", "/properties/version/pattern");
}

TEST(JsonSchema, PatternIsUnanchoredUnlessTheSchemaAnchorsIt) {
  const JsonSchema schema(json::parse(R"({ "type": "string", "pattern": "b+" })"));
  EXPECT_TRUE(schema.validate("abbc").empty());
  expect_one_error(schema.validate("ac"), "", "#/pattern");
  // A pattern says nothing about non-strings; type does.
  EXPECT_EQ(schema.validate(5).size(), 1u);
}

TEST(JsonSchema, MinimumAndMinItems) {
  const JsonSchema schema(sample_schema());
  json doc = valid_document();
  doc["count"] = -1;
  expect_one_error(schema.validate(doc), "/count", "/minimum");
  doc = valid_document();
  doc["rows"] = json::array();
  expect_one_error(schema.validate(doc), "/rows", "/minItems");
}

TEST(JsonSchema, OneOfMatchingNone) {
  const JsonSchema schema(sample_schema());
  json doc = valid_document();
  doc["error"]["code"] = 3;  // usage with no_gpu's code: neither alternative
  const auto errors = schema.validate(doc);
  expect_one_error(errors, "/error", "#/$defs/error/oneOf");
  // The message says why each alternative failed, with paths.
  EXPECT_NE(errors[0].message.find("alternative 0"), std::string::npos) << errors[0].message;
  EXPECT_NE(errors[0].message.find("/error/code"), std::string::npos) << errors[0].message;
  EXPECT_NE(errors[0].message.find("/error/kind"), std::string::npos) << errors[0].message;
}

TEST(JsonSchema, OneOfMatchingTwoFails) {
  const JsonSchema schema(json::parse(R"({ "oneOf": [ { "type": "integer" }, { "type": "number" } ] })"));
  EXPECT_TRUE(schema.validate(2.5).empty());
  const auto errors = schema.validate(2);
  expect_one_error(errors, "", "#/oneOf");
  EXPECT_NE(errors[0].message.find("exactly one"), std::string::npos) << errors[0].message;
}

TEST(JsonSchema, AnyOfMatchingNone) {
  const JsonSchema schema(sample_schema());
  json doc = valid_document();
  doc["device"] = 7;
  expect_one_error(schema.validate(doc), "/device", "/properties/device/anyOf");
}

TEST(JsonSchema, ConstComparesAsJsonDoes) {
  const JsonSchema schema(json::parse(R"({ "const": { "a": 1, "b": [2, "x"] } })"));
  // Key order carries no meaning; 1.0 equals 1.
  EXPECT_TRUE(schema.validate(json::parse(R"({ "b": [2, "x"], "a": 1.0 })")).empty());
  expect_one_error(schema.validate(json::parse(R"({ "a": 1, "b": [2, "y"] })")), "", "#/const");
  expect_one_error(schema.validate(json::parse(R"({ "a": 1 })")), "", "#/const");
  const JsonSchema empty_array(json::parse(R"({ "const": [] })"));
  EXPECT_TRUE(empty_array.validate(json::array()).empty());
  EXPECT_EQ(empty_array.validate(json::array({1.5})).size(), 1u);
}

TEST(JsonSchema, RefSiblingsApplyToo) {
  const JsonSchema schema(json::parse(R"({
    "$defs": { "small": { "type": "integer" } },
    "$ref": "#/$defs/small",
    "minimum": 10
  })"));
  EXPECT_TRUE(schema.validate(12).empty());
  expect_one_error(schema.validate(3), "", "#/minimum");
  expect_one_error(schema.validate("12"), "", "#/$defs/small/type");
}

TEST(JsonSchema, AdditionalPropertiesSchemaChecksEachExtraValue) {
  const JsonSchema schema(
      json::parse(R"({ "properties": { "a": true }, "additionalProperties": { "type": "integer" } })"));
  EXPECT_TRUE(schema.validate(json::parse(R"({ "a": "anything", "b": 1, "c": 2 })")).empty());
  expect_one_error(schema.validate(json::parse(R"({ "a": 1, "b": 1, "c": "2" })")), "/c",
                   "#/additionalProperties/type");
}

TEST(JsonSchema, FalseSchemaRejectsEverything) {
  const JsonSchema schema(json::parse(R"({ "properties": { "never": false } })"));
  EXPECT_TRUE(schema.validate(json::object()).empty());
  expect_one_error(schema.validate(json::parse(R"({ "never": null })")), "/never", "#/properties/never");
}

TEST(JsonSchema, ErrorPathsEscapeSlashAndTilde) {
  EXPECT_EQ(json_pointer_token("a/b~c"), "a~1b~0c");
  const JsonSchema schema(json::parse(R"({ "additionalProperties": false })"));
  expect_one_error(schema.validate(json::parse(R"({ "a/b~c": 1 })")), "/a~1b~0c", "#/additionalProperties");
}

TEST(JsonSchema, ReportsEveryError) {
  const JsonSchema schema(sample_schema());
  json doc = valid_document();
  doc["version"] = 1;
  doc["rows"][0]["mark"] = "bad";
  doc["rows"][1]["mark"] = "worse";
  doc["surprise"] = true;
  EXPECT_EQ(schema.validate(doc).size(), 4u) << to_string(schema.validate(doc));
}

// The validator must refuse what it does not implement, so no schema leans on an unchecked keyword.
TEST(JsonSchema, UnsupportedKeywordsThrow) {
  for (const char* text : {
           R"({ "maxLength": 3 })",
           R"({ "properties": { "a": { "allOf": [true] } } })",
           R"({ "items": [ { "type": "string" } ] })",
           R"({ "prefixItems": [ true ] })",
           R"({ "$defs": { "x": { "format": "date" } } })",
           R"({ "anyOf": [ { "not": true } ] })",
           R"({ "if": true })",
       }) {
    EXPECT_THROW(JsonSchema(json::parse(text)), std::invalid_argument) << text;
  }
}

TEST(JsonSchema, MalformedSchemasThrow) {
  for (const char* text : {
           R"({ "$ref": "#/$defs/nowhere" })",
           R"({ "$ref": "other.json#/$defs/x", "$defs": { "x": true } })",
           R"({ "$ref": "#/properties/a", "properties": { "a": true } })",
           R"({ "type": "int" })",
           R"({ "type": [] })",
           R"({ "pattern": "(" })",
           R"({ "required": "a" })",
           R"({ "minItems": -1 })",
           R"({ "oneOf": [] })",
           R"({ "properties": { "a": 5 } })",
           R"({ "$schema": "http://json-schema.org/draft-07/schema#" })",
           R"({ "properties": { "a": { "$defs": {} } } })",
           R"([ "not", "an", "object" ])",
       }) {
    EXPECT_THROW(JsonSchema(json::parse(text)), std::invalid_argument) << text;
  }
}

TEST(JsonSchema, RefCycleThrowsInsteadOfOverflowing) {
  const JsonSchema schema(json::parse(R"({ "$ref": "#/$defs/a", "$defs": { "a": { "$ref": "#/$defs/a" } } })"));
  EXPECT_THROW(schema.validate(1), std::invalid_argument);
}

}  // namespace
}  // namespace cudasync::test
