#include <cmath>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "clidocs/clidocs.hpp"

namespace cudasync::clidocs {

namespace {

using json = nlohmann::json;

Option parse_option(const json& j) {
  Option o;
  o.longs = j.value("long", std::vector<std::string>{});
  o.shorts = j.value("short", std::vector<std::string>{});
  o.name = j.value("name", "");
  o.positional = j.value("positional", false);
  o.takes_value = j.value("takes_value", false);
  o.optional_value = j.value("optional_value", false);
  o.multiple = j.value("multiple", false);
  o.delimiter = j.value("delimiter", "");
  o.type = j.value("type", "");
  o.values = j.value("values", std::vector<std::string>{});
  if (j.contains("range")) {
    o.min = j["range"].at("min").get<double>();
    o.max = j["range"].at("max").get<double>();
  }
  o.default_value = j.value("default", "");
  o.description = j.value("description", "");
  o.required = j.value("required", false);
  o.hidden = j.value("hidden", false);
  return o;
}

std::vector<Option> parse_options(const json& j) {
  std::vector<Option> out;
  for (const auto& o : j) out.push_back(parse_option(o));
  return out;
}

Command parse_command(const json& j) {
  Command c;
  c.name = j.at("name").get<std::string>();
  c.summary = j.value("summary", "");
  c.lesson = j.value("lesson", false);
  c.hidden = j.value("hidden", false);
  for (const auto& p : j.value("parts", json::array()))
    c.parts.push_back({p.at("id").get<std::string>(), p.value("title", ""), p.value("summary", ""),
                       p.value("needs_gpu", false), p.value("by_default", true)});
  c.options = parse_options(j.value("options", json::array()));
  for (const auto& sub : j.value("commands", json::array())) c.commands.push_back(parse_command(sub));
  return c;
}

std::vector<const Option*> visible(const std::vector<Option>& options, bool positional) {
  std::vector<const Option*> out;
  for (const auto& o : options)
    if (!o.hidden && o.positional == positional) out.push_back(&o);
  return out;
}

}  // namespace

std::vector<std::string> Option::words() const {
  std::vector<std::string> out;
  for (const auto& s : shorts) out.push_back("-" + s);
  for (const auto& l : longs) out.push_back("--" + l);
  return out;
}

std::vector<std::string> Option::value_words() const {
  if (!values.empty()) return values;
  std::vector<std::string> out;
  if (min && max && std::floor(*min) == *min && std::floor(*max) == *max && *max - *min < 64)
    for (auto v = static_cast<long long>(*min); v <= static_cast<long long>(*max); ++v) out.push_back(std::to_string(v));
  return out;
}

std::string Option::metavar() const {
  if (!values.empty()) return join(values, "|");
  if (type == "INT" || type == "UINT" || type == "FLOAT" || type == "NUMBER") return "N";
  return positional && !name.empty() ? name : "VALUE";
}

std::vector<const Option*> Command::visible_options() const { return visible(options, false); }
std::vector<const Option*> Command::positionals() const { return visible(options, true); }
std::vector<const Option*> Spec::visible_options() const { return visible(options, false); }

std::vector<const Command*> Spec::visible_commands() const {
  std::vector<const Command*> out;
  for (const auto& c : commands)
    if (!c.hidden) out.push_back(&c);
  return out;
}

Spec parse_spec(const json& j) {
  if (!j.is_object() || !j.contains("cli_spec_version"))
    throw std::runtime_error("not a cli spec: no cli_spec_version");
  if (j.at("cli_spec_version").get<int>() != 1)
    throw std::runtime_error("cli spec version " + j.at("cli_spec_version").dump() + ": this generator reads version 1");
  Spec s;
  s.program = j.at("program").get<std::string>();
  s.version = j.value("version", "");
  s.description = j.value("description", "");
  s.footer = j.value("footer", "");
  s.options_after_command = j.value("options_after_command", false);
  s.options = parse_options(j.value("options", json::array()));
  for (const auto& c : j.value("commands", json::array())) s.commands.push_back(parse_command(c));
  return s;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::string first_sentence(const std::string& text) {
  std::size_t end = text.size();
  for (const char* stop : {". ", "; "}) end = std::min(end, text.find(stop));
  return text.substr(0, end);
}

std::string single_quoted(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace cudasync::clidocs
