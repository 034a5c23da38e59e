#include "core/course/manifest.hpp"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "core/course/answer_format.hpp"
#include "core/report/report.hpp"

namespace cudasync::course {

namespace {

using json = nlohmann::json;

// The option kinds' names, in OptionSpec::Kind's order.
const std::vector<std::string>& option_kinds() {
  static const std::vector<std::string> kinds = {"count", "choice", "mask", "flag", "text"};
  return kinds;
}

// The line of `needle` in `text` at or after byte `from` (1-based), or the line of `from`.
int line_at(std::string_view text, std::size_t from, std::string_view needle = {}) {
  std::size_t at = from;
  if (!needle.empty()) {
    const std::size_t found = text.find(needle, from);
    if (found != std::string_view::npos) at = found;
  }
  at = std::min(at, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

// Reads one file's rows; every message names the file, the line and the key.
class Reader {
 public:
  Reader(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}

  // Throws "FILE:LINE: KEY: WHAT"; the line is that of KEY's last name at or after byte `from`.
  [[noreturn]] void fail(std::size_t from, const std::string& key, const std::string& what) const {
    std::string last = key.substr(key.find_last_of('.') == std::string::npos ? 0 : key.find_last_of('.') + 1);
    last = last.substr(0, last.find('['));
    const std::string needle = last.empty() || last == "(top)" ? "" : "\"" + last + "\"";
    throw ManifestError(file_ + ":" + std::to_string(line_at(text_, from, needle)) + ": " + key + ": " + what);
  }

  // The byte where row `id` starts: the '{' before its `"id": "ID"` (rows hold no object before
  // their id).
  std::size_t row_start(const std::string& id) const {
    for (const std::string& form : {"\"id\": \"" + id + "\"", "\"id\":\"" + id + "\""}) {
      const std::size_t at = text_.find(form);
      if (at == std::string_view::npos) continue;
      const std::size_t brace = text_.rfind('{', at);
      return brace == std::string_view::npos ? at : brace;
    }
    return 0;
  }

  void keys(const json& j, std::size_t from, const std::string& where, const std::vector<std::string>& accepted) const {
    if (!j.is_object()) fail(from, where, "is not an object");
    for (const auto& [k, v] : j.items())
      if (std::find(accepted.begin(), accepted.end(), k) == accepted.end())
        fail(from, where + "." + k, "unknown key '" + k + "'; accepted: " + comma_list(accepted));
  }

  std::string text(const json& j, std::size_t from, const std::string& key) const {
    if (!j.is_string() || j.get<std::string>().empty()) fail(from, key, "is not a text");
    return j.get<std::string>();
  }

  std::vector<std::string> texts(const json& j, std::size_t from, const std::string& key) const {
    if (!j.is_array()) fail(from, key, "is not a list of texts");
    std::vector<std::string> out;
    for (const auto& v : j) out.push_back(text(v, from, key));
    return out;
  }

  Text words(const json& j, std::size_t from, const std::string& key, bool zh_required) const {
    keys(j, from, key, {"en", "zh"});
    Text t;
    if (!j.contains("en")) fail(from, key, "has no 'en' text");
    t.en = text(j["en"], from, key + ".en");
    if (j.contains("zh")) t.zh = text(j["zh"], from, key + ".zh");
    else if (zh_required) fail(from, key, "has no 'zh' text; every sentence is in English and Chinese");
    return t;
  }

  // The optional true/false `name` of `j` (false when absent).
  bool flag(const json& j, const char* name, std::size_t from, const std::string& key) const {
    if (!j.contains(name)) return false;
    if (!j[name].is_boolean()) fail(from, key + "." + name, "is not true or false");
    return j[name].get<bool>();
  }

  // "SECTION/NAME" into its two ids.
  void ids(const json& j, std::size_t from, const std::string& key, AnswerRead& r) const {
    const std::string s = text(j, from, key);
    const std::size_t slash = s.find('/');
    if (slash == std::string::npos) fail(from, key, "'" + s + "' is not SECTION/ID");
    r.section = s.substr(0, slash);
    r.name = s.substr(slash + 1);
    if (!report::is_id(r.section) || !report::is_id(r.name))
      fail(from, key, "'" + s + "' is not SECTION/ID, two kebab-case ids");
  }

  // A where's value is itself a read, at most kMaxReadDepth deep: a file of nested wheres is refused
  // before it could exhaust the stack.
  static constexpr int kMaxReadDepth = 4;

  AnswerRead read(const json& j, std::size_t from, const std::string& key, int depth = 1) const {
    if (depth > kMaxReadDepth) fail(from, key, "nests reads more than " + std::to_string(kMaxReadDepth) + " deep");
    static const std::vector<std::string> kinds = {"fact",  "cell",    "lanes", "count",
                                                   "check", "headers", "cells", "compare"};
    if (!j.is_object()) fail(from, key, "is not a read; accepted: an object with " + or_list(kinds));
    int named = 0;
    for (const auto& k : kinds) named += j.contains(k) ? 1 : 0;
    if (named != 1) fail(from, key, "names " + std::to_string(named) + " of " + comma_list(kinds) + "; one is accepted");
    AnswerRead r;
    if (j.contains("check")) {
      keys(j, from, key, with_modifiers({"check", "detail"}));
      r.what = AnswerRead::What::check;
      ids(j["check"], from, key + ".check", r);
      r.detail = flag(j, "detail", from, key);
    } else if (j.contains("headers")) {
      keys(j, from, key, with_modifiers({"headers", "prefix", "titles"}));
      r.what = AnswerRead::What::headers;
      ids(j["headers"], from, key + ".headers", r);
      r.prefix = text(j.value("prefix", json()), from, key + ".prefix");
      r.titles = flag(j, "titles", from, key);
    } else if (j.contains("fact")) {
      keys(j, from, key, with_modifiers({"fact", "result", "shown"}));
      r.what = AnswerRead::What::fact;
      ids(j["fact"], from, key + ".fact", r);
      r.result = flag(j, "result", from, key);
    } else if (j.contains("cell")) {
      cell(j, from, key, r);
    } else if (j.contains("cells")) {
      cells(j, from, key, r);
    } else if (j.contains("compare")) {
      compare(j, from, key, depth, r);
    } else {
      rows(j, from, key, depth, r);
    }
    r.shown = flag(j, "shown", from, key);
    if (j.contains("has") && j.contains("lacks")) fail(from, key, "takes has or lacks, not both");
    if (j.contains("has")) r.has = text(j["has"], from, key + ".has");
    if (j.contains("lacks")) {
      r.lacks = texts(j["lacks"], from, key + ".lacks");
      if (r.lacks.empty()) fail(from, key + ".lacks", "names no word");
    }
    if (j.contains("map")) {
      if (!j["map"].is_object() || j["map"].empty()) fail(from, key + ".map", "is not {\"FROM\": \"TO\", ...}");
      for (const auto& [k, v] : j["map"].items()) r.map[k] = text(v, from, key + ".map." + k);
    }
    return r;
  }

  // `own` and the keys every read takes: what turns its value into the answer.
  static std::vector<std::string> with_modifiers(std::vector<std::string> own) {
    own.insert(own.end(), {"has", "lacks", "map"});
    return own;
  }

  static std::string or_list(const std::vector<std::string>& words) {
    std::string s = comma_list(std::vector<std::string>(words.begin(), words.end() - 1));
    return s + " or " + words.back();
  }

  // {"cell": "S/T", "row": N | {"C": V, ...}, "column": "C" | "columns": [...], "gpu_column": "G"}
  void cell(const json& j, std::size_t from, const std::string& key, AnswerRead& r) const {
    keys(j, from, key, with_modifiers({"cell", "row", "column", "columns", "gpu_column", "shown"}));
    r.what = AnswerRead::What::cell;
    ids(j["cell"], from, key + ".cell", r);
    if (!j.contains("row")) fail(from, key, "has no row; accepted: an index, or {\"COLUMN\": VALUE, ...}");
    row(j["row"], from, key + ".row", r);
    if (j.contains("column") == j.contains("columns")) fail(from, key, "needs one of column, columns");
    r.columns = j.contains("column") ? std::vector<std::string>{text(j["column"], from, key + ".column")}
                                     : texts(j["columns"], from, key + ".columns");
    if (r.columns.empty()) fail(from, key + ".columns", "is empty");
    if (j.contains("gpu_column")) {
      if (r.columns.size() != 1) fail(from, key + ".gpu_column", "goes with one column");
      r.gpu_column = text(j["gpu_column"], from, key + ".gpu_column");
    }
  }

  // {"cells": "S/T" | ["S/T", ...], "column": "C", "same": true}
  void cells(const json& j, std::size_t from, const std::string& key, AnswerRead& r) const {
    keys(j, from, key, with_modifiers({"cells", "column", "same", "shown"}));
    r.what = AnswerRead::What::cells;
    const json& named = j["cells"];
    const json list = named.is_array() ? named : json::array({named});
    if (list.empty()) fail(from, key + ".cells", "names no table; accepted: SECTION/TABLE or a list of them");
    for (const auto& t : list) {
      AnswerRead one;
      ids(t, from, key + ".cells", one);
      r.tables.emplace_back(one.section, one.name);
    }
    r.section = r.tables.front().first;
    r.name = r.tables.front().second;
    r.columns = {text(j.value("column", json()), from, key + ".column")};
    r.same = flag(j, "same", from, key);
  }

  // {"compare": [READ, READ | NUMBER]}
  void compare(const json& j, std::size_t from, const std::string& key, int depth, AnswerRead& r) const {
    keys(j, from, key, with_modifiers({"compare"}));
    r.what = AnswerRead::What::compare;
    const json& pair = j["compare"];
    if (!pair.is_array() || pair.size() != 2) fail(from, key + ".compare", "is not [READ, READ or a number]");
    for (std::size_t i = 0; i < 2; ++i) {
      const std::string at = key + ".compare[" + std::to_string(i) + "]";
      auto operand = std::make_shared<AnswerRead>();
      if (pair[i].is_number()) {
        operand->what = AnswerRead::What::number;
        operand->number = pair[i].get<double>();
      } else {
        *operand = read(pair[i], from, at, depth + 1);
      }
      r.operands.push_back(std::move(operand));
    }
    if (r.operands[0]->what == AnswerRead::What::number && r.operands[1]->what == AnswerRead::What::number)
      fail(from, key + ".compare", "compares two numbers; at least one is a read");
  }

  // {"lanes": "S/T", "key": "C", "marked": M | "where": {...}} or {"count": "S/T", ...}
  void rows(const json& j, std::size_t from, const std::string& key, int depth, AnswerRead& r) const {
    const bool lanes = j.contains("lanes");
    keys(j, from, key, lanes ? with_modifiers({"lanes", "key", "marked", "where"})
                             : with_modifiers({"count", "marked", "where"}));
    r.what = lanes ? AnswerRead::What::lanes : AnswerRead::What::count;
    ids(j[lanes ? "lanes" : "count"], from, key + (lanes ? ".lanes" : ".count"), r);
    if (lanes) r.key = text(j.value("key", json()), from, key + ".key");
    if (j.contains("marked") && j.contains("where")) fail(from, key, "takes marked or where, not both");
    if (lanes && !j.contains("marked") && !j.contains("where")) fail(from, key, "needs one of marked, where");
    if (j.contains("marked")) {
      r.marked = text(j["marked"], from, key + ".marked");
      static const std::vector<std::string> marks = {"inactive", "kept-own", "undefined-source", "mismatch"};
      if (std::find(marks.begin(), marks.end(), r.marked) == marks.end())
        fail(from, key + ".marked", "'" + r.marked + "' is no mark; accepted: " + comma_list(marks));
    } else if (j.contains("where")) {
      const json& w = j["where"];
      if (!w.is_object() || w.size() != 1) fail(from, key + ".where", "is not {\"COLUMN\": READ}");
      r.where_column = w.begin().key();
      r.where = std::make_shared<AnswerRead>(
          read(json(w.begin().value()), from, key + ".where." + r.where_column, depth + 1));
    }
  }

  void row(const json& j, std::size_t from, const std::string& key, AnswerRead& r) const {
    if (j.is_number_unsigned()) {
      r.row_index = j.get<std::size_t>();
      return;
    }
    if (!j.is_object() || j.empty()) fail(from, key, "is not an index or {\"COLUMN\": VALUE, ...}");
    for (const auto& [column, v] : j.items()) {
      RowMatch m;
      m.column = column;
      if (v.is_number_integer()) m.integer = v.get<long long>();
      else if (v.is_string()) m.text = v.get<std::string>();
      else fail(from, key + "." + column, "is not a whole number or a text");
      r.row.push_back(std::move(m));
    }
  }

  AnswerFormat format(const json& row, std::size_t from, const std::string& key) const {
    const std::string kind = text(row.value("answer", json()), from, key + ".answer");
    AnswerFormat f;
    if (kind == "integer") f.kind = AnswerKind::integer;
    else if (kind == "mask") f.kind = AnswerKind::mask;
    else if (kind == "lanes") f.kind = AnswerKind::lanes;
    else if (kind == "choice") f.kind = AnswerKind::choice;
    else fail(from, key + ".answer", "'" + kind + "' is no answer kind; accepted: integer, mask, lanes, choice");
    if (f.kind == AnswerKind::choice) {
      if (!row.contains("choices")) fail(from, key, "answers a choice and has no choices");
      f.choices = texts(row["choices"], from, key + ".choices");
      if (f.choices.size() < 2) fail(from, key + ".choices", "names fewer than two");
      for (const auto& c : f.choices)
        if (c.find_first_of(" \t,") != std::string::npos || c != *canonical({AnswerKind::choice, {c}}, c))
          fail(from, key + ".choices", "'" + c + "' is not one lower-case word");
    } else if (row.contains("choices")) {
      fail(from, key + ".choices", "is only for answer \"choice\"");
    }
    return f;
  }

  // A whole number in [lo, hi].
  int whole(const json& j, int lo, int hi, std::size_t from, const std::string& key) const {
    if (!j.is_number_integer() || j.get<long long>() < lo || j.get<long long>() > hi)
      fail(from, key, "is not a whole number " + std::to_string(lo) + ".." + std::to_string(hi));
    return j.get<int>();
  }

  // A file shipped with the lesson: a relative path with no "..".
  std::string lesson_file(const json& j, std::size_t from, const std::string& key) const {
    const std::string f = text(j, from, key);
    if (f.front() == '/' || f.find("..") != std::string::npos || f.size() < 4 || f.substr(f.size() - 3) != ".cu")
      fail(from, key, "'" + f + "' is not a .cu file under the lesson's folder (kernels/NAME.cu)");
    return f;
  }

  // A kernel exercise's "kernel": {...} (core/course/kernel_spec.hpp).
  KernelSpec kernel(const json& j, std::size_t from, const std::string& key) const {
    keys(j, from, key, {"file", "harness", "shapes", "scratch", "inputs", "expect", "model_gpus", "memory_stress"});
    KernelSpec k;
    k.file = lesson_file(j.value("file", json()), from, key + ".file");
    k.harness = lesson_file(j.value("harness", json()), from, key + ".harness");
    const json shapes = j.value("shapes", json());
    if (!shapes.is_array() || shapes.empty() || shapes.size() > 8)
      fail(from, key + ".shapes", "is not a list of 1..8 [grid, block] pairs");
    for (const json& s : shapes) {
      if (!s.is_array() || s.size() != 2) fail(from, key + ".shapes", "holds an entry that is not [grid, block]");
      const int grid = whole(s[0], 1, 64, from, key + ".shapes");
      const int block = whole(s[1], 1, 1024, from, key + ".shapes");
      if (grid * block > 4096) fail(from, key + ".shapes", "holds a shape of more than 4096 threads");
      k.shapes.emplace_back(grid, block);
    }
    if (j.contains("scratch")) k.scratch = whole(j["scratch"], 1, 1 << 16, from, key + ".scratch");
    if (j.contains("inputs")) {
      const json& in = j["inputs"];
      if (!in.is_array() || in.size() != 2) fail(from, key + ".inputs", "is not [min, max]");
      k.input_min = whole(in[0], -1000000, 1000000, from, key + ".inputs");
      k.input_max = whole(in[1], k.input_min, 1000000, from, key + ".inputs");
    }
    if (j.contains("model_gpus")) k.model_gpus = whole(j["model_gpus"], 1, 8, from, key + ".model_gpus");
    if (j.contains("memory_stress")) {
      if (!j["memory_stress"].is_boolean()) fail(from, key + ".memory_stress", "is not true or false");
      k.memory_stress = j["memory_stress"].get<bool>();
    }
    const json& x = j.value("expect", json());
    const std::string ek = key + ".expect";
    keys(x, from, ek, {"what", "over", "who", "by"});
    static const std::vector<std::pair<std::string, KernelExpect::What>> whats = {
        {"sum", KernelExpect::What::sum}, {"input", KernelExpect::What::input},
        {"rotate", KernelExpect::What::rotate}, {"tickets", KernelExpect::What::tickets}};
    static const std::vector<std::pair<std::string, KernelExpect::Who>> whos = {
        {"all", KernelExpect::Who::all}, {"first", KernelExpect::Who::first}, {"lane0", KernelExpect::Who::lane0}};
    const auto pick = [&](const auto& table, const json& v, const std::string& k2) {
      std::vector<std::string> names;
      for (const auto& [n, w] : table) {
        names.push_back(n);
        if (v.is_string() && v.get<std::string>() == n) return w;
      }
      fail(from, k2, "is not one of " + comma_list(names));
    };
    k.expect.what = pick(whats, x.value("what", json()), ek + ".what");
    if (x.contains("who")) k.expect.who = pick(whos, x["who"], ek + ".who");
    const bool sum = k.expect.what == KernelExpect::What::sum, rotate = k.expect.what == KernelExpect::What::rotate;
    if (sum && !x.contains("over")) fail(from, ek + ".over", "is missing: warp, block, grid or a count");
    if (!sum && !rotate && x.contains("over")) fail(from, ek + ".over", "is only for what: sum or rotate");
    if (rotate) {
      const json& o = x.value("over", json("block"));
      if (o != "block" && o != "grid") fail(from, ek + ".over", "is not block or grid (what: rotate)");
      k.expect.over = o == "grid" ? KernelExpect::kOverGrid : KernelExpect::kOverBlock;
    }
    if (rotate != x.contains("by")) fail(from, ek + ".by", rotate ? "is missing: how many places" : "is only for what: rotate");
    if (sum) {
      const json& o = x["over"];
      if (o == "warp") k.expect.over = 32;
      else if (o == "block") k.expect.over = KernelExpect::kOverBlock;
      else if (o == "grid") k.expect.over = KernelExpect::kOverGrid;
      else k.expect.over = whole(o, 1, 1024, from, ek + ".over");
    }
    if (rotate) k.expect.by = whole(x["by"], 1, 1023, from, ek + ".by");
    return k;
  }

  // Row `i` of "options": its form, and that its help names a catalog key.
  OptionSpec option(const json& row, std::size_t i) const {
    const std::string key = "options[" + std::to_string(i) + "]";
    if (!row.is_object()) fail(0, key, "is not an object");
    const std::string name = row.contains("name") && row["name"].is_string() ? row["name"].get<std::string>() : "";
    std::size_t from = 0;
    for (const std::string& form : {"\"name\": \"" + name + "\"", "\"name\":\"" + name + "\""})
      if (const std::size_t at = text_.find(form); at != std::string_view::npos) {
        from = at;
        break;
      }
    keys(row, from, key, {"name", "kind", "list", "min", "max", "choices", "accepted", "help", "default", "help_args", "hidden"});
    OptionSpec o;
    o.line = line_at(text_, from);
    o.name = text(row.value("name", json()), from, key + ".name");
    if (o.name.rfind("--", 0) != 0 || !report::is_id(o.name.substr(2)))
      fail(from, key + ".name", "'" + o.name + "' is not --kebab-case");
    const std::vector<std::string>& kinds = option_kinds();
    const std::string kind = text(row.value("kind", json()), from, key + ".kind");
    const auto k = std::find(kinds.begin(), kinds.end(), kind);
    if (k == kinds.end()) fail(from, key + ".kind", "'" + kind + "' is no kind; accepted: " + comma_list(kinds));
    o.kind = static_cast<OptionSpec::Kind>(k - kinds.begin());
    const bool count = o.kind == OptionSpec::Kind::count;
    for (const char* b : {"min", "max"}) {
      if (row.contains(b) != count) fail(from, key + "." + b, count ? "is missing: a whole number" : "is only for kind count");
      if (count && !row[b].is_number_unsigned()) fail(from, key + "." + b, "is not a whole number");
    }
    if (count) {
      o.min = row["min"].get<std::uint64_t>();
      o.max = row["max"].get<std::uint64_t>();
      if (o.min > o.max) fail(from, key + ".max", std::to_string(o.max) + " is below min " + std::to_string(o.min));
    }
    if (row.contains("choices") != (o.kind == OptionSpec::Kind::choice))
      fail(from, key + ".choices", o.kind == OptionSpec::Kind::choice ? "is missing: the words it takes" : "is only for kind choice");
    if (row.contains("choices")) {
      o.choices = texts(row["choices"], from, key + ".choices");
      if (o.choices.empty()) fail(from, key + ".choices", "is empty");
    }
    if (row.contains("accepted") != (o.kind == OptionSpec::Kind::text))
      fail(from, key + ".accepted", o.kind == OptionSpec::Kind::text ? "is missing: the catalog key of what it takes" : "is only for kind text");
    if (row.contains("accepted")) o.accepted = text(row["accepted"], from, key + ".accepted");
    if (row.contains("list")) {
      const json& l = row["list"];
      if (o.kind == OptionSpec::Kind::flag) fail(from, key + ".list", "is not for a flag");
      if (l.is_boolean()) {
        o.list = l.get<bool>();
      } else if (l.is_array() && l.size() == 2 && l[0].is_number_unsigned() && l[1].is_number_unsigned() &&
                 l[0].get<std::size_t>() >= 1 && l[0].get<std::size_t>() <= l[1].get<std::size_t>()) {
        o.list = true;
        o.least = l[0].get<std::size_t>();
        o.most = l[1].get<std::size_t>();
      } else {
        fail(from, key + ".list", "is not true, false or [least, most] items");
      }
    }
    o.hidden = flag(row, "hidden", from, key);
    if (row.contains("help") == o.hidden)
      fail(from, key + ".help", o.hidden ? "is not for a hidden option" : "is missing: the catalog key of its help");
    if (row.contains("help")) o.help = text(row["help"], from, key + ".help");
    if (row.contains("default")) {
      const json& d = row["default"];
      if (d.is_number_unsigned()) o.default_value = std::to_string(d.get<std::uint64_t>());
      else o.default_value = text(d, from, key + ".default");
    }
    if (row.contains("help_args")) {
      if (!row["help_args"].is_object()) fail(from, key + ".help_args", "is not {\"NAME\": NUMBER, ...}");
      for (const auto& [n, v] : row["help_args"].items()) {
        if (!report::is_id(n) || !v.is_number_integer())
          fail(from, key + ".help_args." + n, "is not a kebab-case name with a whole number");
        o.help_args.emplace_back(n, v.get<long long>());
      }
    }
    return o;
  }

  // "--kebab-case" option names, such as a part's "reads".
  std::vector<std::string> option_names(const json& j, std::size_t from, const std::string& key) const {
    std::vector<std::string> names = texts(j, from, key);
    for (const auto& n : names)
      if (n.rfind("--", 0) != 0 || !report::is_id(n.substr(2))) fail(from, key, "'" + n + "' is not --kebab-case");
    return names;
  }

  // Row `i` of "parts".
  PartSpec part(const json& row, std::size_t i) const {
    const std::string key = "parts[" + std::to_string(i) + "]";
    if (!row.is_object()) fail(0, key, "is not an object");
    const std::string id = row.contains("id") && row["id"].is_string() ? row["id"].get<std::string>() : "";
    const std::size_t from = id.empty() ? 0 : row_start(id);
    keys(row, from, key, {"id", "reads", "needs_gpu", "child", "default", "former_ids"});
    PartSpec p;
    p.line = line_at(text_, from);
    p.id = text(row.value("id", json()), from, key + ".id");
    if (!report::is_id(p.id)) fail(from, key + ".id", "'" + p.id + "' is not a kebab-case id");
    if (row.contains("reads")) p.reads = option_names(row["reads"], from, key + ".reads");
    p.needs_gpu = flag(row, "needs_gpu", from, key);
    p.child = flag(row, "child", from, key);
    p.by_default = !row.contains("default") || flag(row, "default", from, key);
    if (row.contains("former_ids")) p.former_ids = texts(row["former_ids"], from, key + ".former_ids");
    for (const auto& f : p.former_ids)
      if (!report::is_id(f)) fail(from, key + ".former_ids", "'" + f + "' is not a kebab-case id");
    return p;
  }

  // That `id` is one of `parts`, else a failure at `key`.
  void part_named(const std::vector<PartSpec>& parts, const std::string& id, const std::string& key,
                  const std::string& what) const {
    if (std::none_of(parts.begin(), parts.end(), [&](const PartSpec& p) { return p.id == id; }))
      fail(0, key, what + "'" + id + "', which is no part of \"parts\"");
  }

  // Row `i` of "predictions": a part of the lesson, its answers, and other words for them.
  PredictionSpec prediction(const json& row, std::size_t i, const std::vector<PartSpec>& parts) const {
    const std::string key = "predictions[" + std::to_string(i) + "]";
    keys(row, 0, key, {"part", "choices", "aliases"});
    PredictionSpec p;
    p.part = text(row.value("part", json()), 0, key + ".part");
    part_named(parts, p.part, key + ".part", "");
    p.choices = texts(row.value("choices", json()), 0, key + ".choices");
    if (p.choices.size() < 2) fail(0, key + ".choices", "needs two answers or more");
    const json aliases = row.value("aliases", json::object());
    if (!aliases.is_object()) fail(0, key + ".aliases", "is not {\"WORD\": CHOICE, ...}");
    for (const auto& [word, choice] : aliases.items()) {
      const std::string c = text(choice, 0, key + ".aliases." + word);
      if (std::find(p.choices.begin(), p.choices.end(), c) == p.choices.end())
        fail(0, key + ".aliases." + word, "'" + c + "' is not one of its choices; accepted: " + comma_list(p.choices));
      p.aliases.emplace_back(word, c);
    }
    return p;
  }

  // Row `i` of "sanitize"; `parts` are the lesson's, which its --part must name.
  SanitizerRun sanitizer_run(const json& row, std::size_t i, const std::vector<PartSpec>& parts) const {
    const std::string key = "sanitize[" + std::to_string(i) + "]";
    keys(row, 0, key, {"tool", "expect", "args"});
    SanitizerRun s;
    const auto one_of = [&](const char* name, const std::vector<std::string>& accepted) {
      const std::string v = text(row.value(name, json()), 0, key + "." + name);
      if (std::find(accepted.begin(), accepted.end(), v) == accepted.end())
        fail(0, key + "." + name, "'" + v + "' is not one; accepted: " + comma_list(accepted));
      return v;
    };
    s.tool = one_of("tool", {"memcheck", "racecheck", "synccheck", "memcheck-kernels"});
    s.expect = one_of("expect", {"clean", "caught", "own"});
    s.args = texts(row.value("args", json::array()), 0, key + ".args");
    for (std::size_t a = 0; a + 1 < s.args.size(); ++a) {
      if (s.args[a] != "--part") continue;
      std::string ids = s.args[a + 1] + ",";
      for (std::size_t at = 0, comma; (comma = ids.find(',', at)) != std::string::npos; at = comma + 1)
        part_named(parts, ids.substr(at, comma - at), key + ".args", "--part names ");
    }
    return s;
  }

  ManifestExercise exercise(const json& row, std::size_t index, ManifestOrigin origin) const {
    const std::string key = "exercises[" + std::to_string(index) + "]";
    if (!row.is_object()) fail(0, key, "is not an object");
    const std::string id = row.contains("id") && row["id"].is_string() ? row["id"].get<std::string>() : "";
    const std::size_t from = id.empty() ? 0 : row_start(id);
    const bool teacher = origin == ManifestOrigin::teacher;
    std::vector<std::string> accepted = {"id", "former_ids", "answer", "choices", "run", "read", "values", "why",
                                         "needs_gpu"};
    if (teacher) {
      accepted.insert(accepted.end(), {"question", "hint"});
    } else {
      accepted.insert(accepted.end(), {"number", "compute", "kernel"});
    }
    keys(row, from, key, accepted);
    ManifestExercise m;
    m.line = line_at(text_, from);
    Exercise& e = m.exercise;
    e.id = text(row.value("id", json()), from, key + ".id");
    if (!report::is_id(e.id)) fail(from, key + ".id", "'" + e.id + "' is not a kebab-case id");
    if (!teacher) {
      if (!row.contains("number") || !row["number"].is_number_unsigned() || row["number"].get<long long>() < 1 ||
          row["number"].get<long long>() > 999)
        fail(from, key + ".number", "is not a number 1, 2, ... 999");
      e.number = row["number"].get<int>();
    }
    if (row.contains("former_ids")) e.former_ids = texts(row["former_ids"], from, key + ".former_ids");
    e.needs_gpu = flag(row, "needs_gpu", from, key);
    if (teacher) {
      if (!row.contains("question") || !row.contains("hint")) fail(from, key, "needs a question and a hint");
      e.question = words(row["question"], from, key + ".question", false);
      e.hint = words(row["hint"], from, key + ".hint", false);
    }
    if (row.contains("kernel")) {
      if (teacher) fail(from, key + ".kernel", "is for the built-in course only (its files ship with the lesson)");
      for (const char* k : {"answer", "run", "read", "values", "why", "compute"})
        if (row.contains(k)) fail(from, key + "." + k, "is not for a kernel exercise, which the checker judges");
      e.kind = Kind::kernel;
      e.needs_gpu = true;
      e.spec = kernel(row["kernel"], from, key + ".kernel");
      e.starter = e.spec.file;
      return m;
    }
    e.format = format(row, from, key);
    if (!row.contains("why")) fail(from, key, "has no why: how the answer follows, in en and zh");
    e.why = words(row["why"], from, key + ".why", !teacher);
    if (row.contains("compute") == row.contains("read"))
      fail(from, key, "needs one of read (what answers it, by id) and compute (the lesson code's name)");
    if (row.contains("compute")) {
      m.compute = text(row["compute"], from, key + ".compute");
      for (const char* k : {"run", "values"})
        if (row.contains(k)) fail(from, key + "." + k, "is not for a row its lesson's code computes");
      return m;
    }
    m.run = texts(row.value("run", json::array()), from, key + ".run");
    m.read = read(row["read"], from, key + ".read");
    if (row.contains("values")) {
      if (!row["values"].is_object()) fail(from, key + ".values", "is not {\"NAME\": READ, ...}");
      for (const auto& [name, v] : row["values"].items()) {
        if (name == "answer") fail(from, key + ".values.answer", "is the answer's own name");
        m.values.emplace_back(name, read(v, from, key + ".values." + name));
      }
    }
    return m;
  }

 private:
  std::string_view text_;
  std::string file_;
};

}  // namespace

const char* to_string(OptionSpec::Kind kind) { return option_kinds()[static_cast<std::size_t>(kind)].c_str(); }

const OptionSpec* Manifest::option(std::string_view name) const {
  for (const auto& o : options)
    if (o.name == name) return &o;
  return nullptr;
}

std::string comma_list(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : ", ") + w;
  return s;
}

Manifest parse_manifest(std::string_view text, const std::string& file, ManifestOrigin origin,
                        const std::vector<std::string>& lessons) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    const std::size_t at = e.byte == 0 ? 0 : e.byte - 1;
    std::string what = e.what();
    const std::size_t colon = what.find(": syntax error");
    if (colon != std::string::npos) what = what.substr(colon + 2);
    throw ManifestError(file + ":" + std::to_string(line_at(text, at)) + ": not JSON: " + what);
  } catch (const json::exception& e) {
    // A number too large for any type ("1e999"): nlohmann names the token, not its place.
    std::string what = e.what();
    if (const std::size_t bracket = what.find("] "); bracket != std::string::npos) what = what.substr(bracket + 2);
    const std::size_t open = what.find('\''), close = what.rfind('\'');
    const std::string token = open != std::string::npos && close > open ? what.substr(open + 1, close - open - 1) : "";
    throw ManifestError(file + ":" + std::to_string(line_at(text, 0, token)) + ": not JSON: " + what);
  }
  Reader r(text, file);
  const bool teacher = origin == ManifestOrigin::teacher;
  r.keys(j, 0, "(top)", teacher ? std::vector<std::string>{"lesson", "exercises"}
                                : std::vector<std::string>{"lesson", "order", "tour", "needs", "options", "parts",
                                                           "bench", "sanitize", "predictions", "exercises"});
  Manifest m;
  m.file = file;
  m.lesson = r.text(j.value("lesson", json()), 0, "lesson");
  if (!lessons.empty() && std::find(lessons.begin(), lessons.end(), m.lesson) == lessons.end())
    r.fail(0, "lesson", "'" + m.lesson + "' is no lesson; accepted: " + comma_list(lessons));
  if (!teacher) {
    const json order = j.value("order", json());
    if (!order.is_number_unsigned() || order.get<long long>() < 1 || order.get<long long>() > 999)
      r.fail(0, "order", "is not the lesson's place in the course, 1, 2, ... 999");
    m.order = order.get<int>();
    m.tour = r.texts(j.value("tour", json()), 0, "tour");
    const json needs = j.value("needs", json::array());
    if (!needs.is_array()) r.fail(0, "needs", "is not a list of {\"need\": ..., \"for\": ...}");
    std::vector<std::string> accepted(std::begin(kManifestNeeds), std::end(kManifestNeeds));
    for (std::size_t i = 0; i < needs.size(); ++i) {
      const std::string key = "needs[" + std::to_string(i) + "]";
      r.keys(needs[i], 0, key, {"need", "for"});
      const std::string need = r.text(needs[i].value("need", json()), 0, key + ".need");
      if (std::find(accepted.begin(), accepted.end(), need) == accepted.end())
        r.fail(0, key + ".need", "'" + need + "' is no need; accepted: " + comma_list(accepted));
      m.needs.emplace_back(need, r.text(needs[i].value("for", json()), 0, key + ".for"));
    }
  }
  if (!teacher && j.contains("options")) {
    if (!j["options"].is_array()) r.fail(0, "options", "is not a list of options");
    for (std::size_t i = 0; i < j["options"].size(); ++i) {
      OptionSpec o = r.option(j["options"][i], i);
      if (m.option(o.name))
        r.fail(0, "options[" + std::to_string(i) + "].name", "'" + o.name + "' is declared twice");
      m.options.push_back(std::move(o));
    }
  }
  if (!teacher) {
    // The options a part or the bench reads are the manifest's own.
    const auto declared = [&](const std::vector<std::string>& reads, const std::string& key) {
      for (const auto& o : reads)
        if (!m.option(o)) r.fail(0, key, o + " is not one of \"options\"");
    };
    const json parts = j.value("parts", json::array());
    if (!parts.is_array()) r.fail(0, "parts", "is not a list of the lesson's parts");
    std::set<std::string> part_ids;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      PartSpec p = r.part(parts[i], i);
      for (const auto& id : p.former_ids)
        if (!part_ids.insert(id).second) r.fail(0, "parts[" + std::to_string(i) + "].former_ids", "'" + id + "' is taken");
      if (!part_ids.insert(p.id).second) r.fail(0, "parts[" + std::to_string(i) + "].id", "'" + p.id + "' is taken");
      declared(p.reads, "parts[" + std::to_string(i) + "].reads");
      m.parts.push_back(std::move(p));
    }
    const json predictions = j.value("predictions", json::array());
    if (!predictions.is_array()) r.fail(0, "predictions", "is not a list of --predict questions");
    for (std::size_t i = 0; i < predictions.size(); ++i) m.predictions.push_back(r.prediction(predictions[i], i, m.parts));
    const json runs = j.value("sanitize", json::array());
    if (!runs.is_array()) r.fail(0, "sanitize", "is not a list of compute-sanitizer runs");
    for (std::size_t i = 0; i < runs.size(); ++i) m.sanitize.push_back(r.sanitizer_run(runs[i], i, m.parts));
    if (j.contains("bench")) {
      r.keys(j["bench"], 0, "bench", {"reads"});
      m.bench = true;
      m.bench_reads = r.option_names(j["bench"].value("reads", json::array()), 0, "bench.reads");
      declared(m.bench_reads, "bench.reads");
    }
  }
  if (!j.contains("exercises") || !j["exercises"].is_array()) r.fail(0, "exercises", "is not a list of exercises");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < j["exercises"].size(); ++i) {
    ManifestExercise row = r.exercise(j["exercises"][i], i, origin);
    const std::size_t from = r.row_start(row.exercise.id);
    if (!seen.insert(row.exercise.id).second)
      r.fail(from, "exercises[" + std::to_string(i) + "].id", "'" + row.exercise.id + "' is the id of an earlier row");
    for (const auto& f : row.exercise.former_ids)
      if (!seen.insert(f).second)
        r.fail(from, "exercises[" + std::to_string(i) + "].former_ids", "'" + f + "' is already an id of this file");
    if (!teacher && row.exercise.number != static_cast<int>(i) + 1)
      r.fail(from, "exercises[" + std::to_string(i) + "].number",
             std::to_string(row.exercise.number) + " where " + std::to_string(i + 1) + " comes next");
    m.exercises.push_back(std::move(row));
  }
  return m;
}

}  // namespace cudasync::course
