#include "core/cli/cli_spec.hpp"

#include <cmath>
#include <cstdlib>

#include "core/version.hpp"

namespace cudasync::cli {

using json = nlohmann::ordered_json;

namespace {

// Splits "INT:{2,4}:INT in [0 - 31]" at the colons outside braces and brackets.
std::vector<std::string> split_top_level(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  int depth = 0;
  for (const char c : s) {
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    if (c == sep && depth == 0) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

std::optional<double> number(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') return std::nullopt;
  return v;
}

json number_json(double v) {
  if (std::floor(v) == v && std::fabs(v) < 9e15) return static_cast<std::int64_t>(v);
  return v;
}

// "{2,4,8}" (IsMember over a set) or "{auto->0,gpu->1}" (over a map: the keys are typed).
std::optional<std::vector<std::string>> member_values(const std::string& d) {
  if (d.size() < 2 || d.front() != '{' || d.back() != '}') return std::nullopt;
  std::vector<std::string> out;
  for (std::string v : split_top_level(d.substr(1, d.size() - 2), ',')) {
    const auto arrow = v.find("->");
    if (arrow != std::string::npos) v = v.substr(0, arrow);
    if (!v.empty()) out.push_back(v);
  }
  return out;
}

// "INT in [0 - 31]" (Range).
bool read_range(const std::string& d, TypeName& t) {
  const auto open = d.find(" in [");
  if (open == std::string::npos || d.back() != ']') return false;
  const std::string inside = d.substr(open + 5, d.size() - open - 6);
  const auto dash = inside.find(" - ");
  if (dash == std::string::npos) return false;
  const auto lo = number(inside.substr(0, dash)), hi = number(inside.substr(dash + 3));
  if (!lo || !hi) return false;
  t.min = lo;
  t.max = hi;
  return true;
}

const CommandSummary* summary_of(const std::vector<CommandSummary>& commands, const std::string& name) {
  for (const auto& c : commands)
    if (c.name == name) return &c;
  return nullptr;
}

json option_json(const CLI::Option& o) {
  json j;
  const bool positional = o.get_lnames().empty() && o.get_snames().empty();
  if (positional) j["name"] = o.get_name(true, false);
  j["long"] = o.get_lnames();
  j["short"] = o.get_snames();
  j["positional"] = positional;
  const bool flag = o.get_expected_max() == 0;
  j["takes_value"] = !flag;
  // A flag with a default value ("--json{-}") also takes one after '=' ("--json=FILE").
  j["optional_value"] = flag && !o.get_fnames().empty();
  // Several values (a vector, a delimiter), or a flag that counts its repeats (-v -v).
  j["multiple"] = flag ? o.get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll
                       : o.get_items_expected_max() > 1;
  if (o.get_delimiter() != '\0') j["delimiter"] = std::string(1, o.get_delimiter());
  const TypeName t = parse_type_name(o.get_type_name());
  j["type"] = t.type;
  if (!t.values.empty()) j["values"] = t.values;
  if (t.min && t.max) j["range"] = {{"min", number_json(*t.min)}, {"max", number_json(*t.max)}};
  if (!o.get_default_str().empty()) j["default"] = o.get_default_str();
  j["required"] = o.get_required();
  j["hidden"] = o.get_group().empty();
  j["description"] = o.get_description();
  return j;
}

json options_json(const CLI::App& app) {
  json out = json::array();
  for (const CLI::Option* o : app.get_options()) out.push_back(option_json(*o));
  return out;
}

json commands_json(const CLI::App& app, const std::vector<CommandSummary>& commands) {
  json out = json::array();
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    json c;
    c["name"] = sub->get_name();
    c["summary"] = sub->get_description();
    const CommandSummary* s = summary_of(commands, sub->get_name());
    c["lesson"] = s != nullptr && s->is_lesson;
    c["hidden"] = sub->get_group().empty();
    json parts = json::array();
    if (s)
      for (const auto& p : s->parts)
        parts.push_back({{"id", p.id}, {"title", p.title}, {"summary", p.summary}, {"needs_gpu", p.needs_gpu},
                         {"by_default", p.by_default}});
    c["parts"] = std::move(parts);
    c["options"] = options_json(*sub);
    c["commands"] = commands_json(*sub, commands);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

TypeName parse_type_name(const std::string& type_name) {
  TypeName t;
  const std::vector<std::string> pieces = split_top_level(type_name, ':');
  t.type = pieces.front();
  for (std::size_t i = 1; i < pieces.size(); ++i) {
    if (const auto v = member_values(pieces[i])) t.values = *v;
    else read_range(pieces[i], t);
  }
  return t;
}

nlohmann::ordered_json cli_spec(const CLI::App& app, const std::vector<CommandSummary>& commands) {
  json j;
  j["cli_spec_version"] = kCliSpecVersion;
  j["program"] = app.get_name();
  j["version"] = kToolVersion;
  j["description"] = app.get_description();
  j["footer"] = app.get_footer();
  // The program's options are accepted after a command's name too.
  j["options_after_command"] = app.get_fallthrough();
  j["options"] = options_json(app);
  j["commands"] = commands_json(app, commands);
  return j;
}

void add_cli_spec_flag(CLI::App& app) {
  app.add_flag_callback(
         "--cli-spec", [] { throw CLI::Success(); },
         "Print the command line's definition as JSON (commands, options, accepted values) and exit")
      ->group("");
}

}  // namespace cudasync::cli
