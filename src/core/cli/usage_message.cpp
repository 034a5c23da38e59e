#include "core/cli/usage_message.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "core/cli/did_you_mean.hpp"
#include "core/cli/option_checks.hpp"

namespace cudasync::cli {

namespace {

// The length of the UTF-8 sequence at s[i] that encodes a printable character, or 0.
std::size_t printable_utf8_at(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return (c >= 0x20 && c != 0x7f) ? 1 : 0;
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if ((c & 0xe0) == 0xc0) n = 2, cp = c & 0x1fu;
  else if ((c & 0xf0) == 0xe0) n = 3, cp = c & 0x0fu;
  else if ((c & 0xf8) == 0xf0) n = 4, cp = c & 0x07u;
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3fu);
  }
  const std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < smallest[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;  // overlong, surrogate
  if (cp >= 0x80 && cp < 0xa0) return 0;                                           // C1 controls
  return n;
}

bool plain_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("._,:/=+@%^-").find(c) != std::string_view::npos;
}

// The first `limit` characters of v: printable UTF-8 as it is, every other byte as \xHH; with
// `backslash_quotes`, ' and \ get a backslash (bash's $'...' form).
struct Escaped {
  std::string text;
  bool escaped = false;  // a byte became \xHH
  bool plain = true;     // only characters a shell takes unquoted
  bool cut = false;      // v was longer than `limit` characters
};

Escaped escape(std::string_view v, std::size_t limit, bool backslash_quotes) {
  Escaped e;
  std::size_t i = 0;
  for (std::size_t chars = 0; i < v.size() && chars < limit; ++chars) {
    const std::size_t n = printable_utf8_at(v, i);
    if (n == 0) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(v[i]));
      e.text += buf;
      e.escaped = true;
      ++i;
      continue;
    }
    if (n > 1 || !plain_char(v[i])) e.plain = false;
    if (backslash_quotes && (v[i] == '\'' || v[i] == '\\')) e.text += '\\';
    e.text.append(v.substr(i, n));
    i += n;
  }
  e.cut = i < v.size();
  return e;
}

std::string cut_note(std::string_view v) { return "... (" + std::to_string(v.size()) + " bytes)"; }

// A word of a message longer than kLongWord bytes (a value quoted in it) shows its first
// kShownChars characters, as shown_value cuts a value.
constexpr std::size_t kLongWord = 100;
constexpr std::size_t kShownChars = 64;

// The name a user types for an option ("--width", "-v", "lesson"), hidden or not (CLI11's
// get_name() is empty for a hidden option).
std::string typed_name(const CLI::Option& o) {
  if (!o.get_lnames().empty()) return "--" + o.get_lnames().front();
  if (!o.get_snames().empty()) return "-" + o.get_snames().front();
  return o.get_single_name();
}

bool given_in(const std::vector<std::string>& args, const std::string& name) {
  return std::any_of(args.begin(), args.end(),
                     [&](const std::string& a) { return a == name || a.rfind(name + "=", 0) == 0; });
}

// The apps to search, the one the user was in first: the parsed subcommand, then the app, then the rest.
std::vector<const CLI::App*> apps_in_order(const CLI::App& app) {
  std::vector<const CLI::App*> out;
  const auto subs = app.get_subcommands([](const CLI::App*) { return true; });
  for (const CLI::App* s : subs)
    if (s->parsed()) out.push_back(s);
  out.push_back(&app);
  for (const CLI::App* s : subs)
    if (!s->parsed()) out.push_back(s);
  return out;
}

const CLI::App* command_of(const CLI::App& app) {
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
    if (s->parsed()) return s;
  return &app;
}

std::string command_line(const CLI::App& app) {
  const CLI::App* c = command_of(app);
  return c == &app ? app.get_name() : app.get_name() + " " + c->get_name();
}

std::string option_list(const CLI::App& a) {
  std::string out;
  for (const CLI::Option* o : a.get_options()) {
    if (o->get_group().empty() || o->get_lnames().empty()) continue;
    out += (out.empty() ? "" : ", ") + typed_name(*o);
  }
  return out;
}

struct Match {
  const CLI::Option* option = nullptr;
  std::string reason;  // what CLI11 said after the option's name
  bool missing_value = false;
  bool required = false;
};

// Which option a CLI11 message is about, by the prefixes CLI11 2.1 writes (Error.hpp).
Match find_option(const CLI::App& app, const std::string& msg, const std::vector<std::string>& args) {
  Match best;
  std::size_t best_len = 0;
  for (const CLI::App* a : apps_in_order(app)) {
    for (const CLI::Option* o : a->get_options()) {
      const std::string cli_name = o->get_name();  // "" when hidden
      if (cli_name.empty() && !given_in(args, typed_name(*o))) continue;
      Match m;
      m.option = o;
      const std::string convert = "Could not convert: " + cli_name + " = ";
      if (msg.rfind(convert, 0) == 0) {
        m.reason = "not a value of the option's type";
      } else if (msg.rfind(cli_name + ":", 0) == 0) {
        m.reason = msg.substr(cli_name.size() + 1);
        if (!m.reason.empty() && m.reason.front() == ' ') m.reason.erase(0, 1);
        m.missing_value = m.reason.find(" required ") != std::string::npos &&
                          m.reason.size() >= 8 && m.reason.compare(m.reason.size() - 8, 8, " missing") == 0;
      } else if (!cli_name.empty() && msg == cli_name + " is required") {
        m.required = true;
      } else if (!cli_name.empty() && msg.find(" arguments to " + cli_name + ", got ") != std::string::npos) {
        m.reason = msg;
      } else {
        continue;
      }
      if (!best.option || cli_name.size() > best_len) {
        best = m;
        best_len = cli_name.size();
      }
    }
    if (best.option) break;
  }
  return best;
}

// CLI11's own wording of a rejected value, in fewer words (the value and the accepted values
// follow in the message anyway).
std::string plain_reason(const std::string& reason, const std::string& value) {
  if (reason.find(" not in {") != std::string::npos || reason == value) return "not one of the choices";
  if (reason.rfind("Value ", 0) == 0 && reason.find(" not in range ") != std::string::npos) {
    const std::string digits = value.substr(!value.empty() && value[0] == '-' ? 1 : 0);
    const bool number = !digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos;
    return number ? "out of range" : "not a number";
  }
  return reason;
}

// The value the error is about: the first result the option's own checks refuse (a list option
// holds several), else one the message quotes, else all of them.
std::string given_value(const CLI::Option& o, const std::string& reason) {
  const auto& results = o.results();
  if (results.empty()) return "";
  const std::vector<CLI::Validator> checks = validators_of(o);
  for (const std::string& r : results)
    for (const CLI::Validator& v : checks) {
      std::string copy = r;
      try {
        if (!v(copy).empty()) return r;
      } catch (const std::exception&) {  // CLI11's IsMember over numbers throws on a value it cannot convert
        return r;
      }
    }
  for (const std::string& r : results)
    if (!r.empty() && reason.find(r) != std::string::npos) return r;
  std::string all;
  for (std::size_t i = 0; i < results.size(); ++i) all += (i ? " " : "") + results[i];
  return all;
}

// The words CLI11 found no place for, in the order typed. CLI11 keeps them (an empty one too,
// which its message shows as nothing at all); its message is read only where it kept none.
std::vector<std::string> extra_words(const CLI::App& app, const std::string& msg) {
  std::vector<std::string> extras = app.remaining(true);
  if (!extras.empty()) return extras;
  const auto colon = msg.find("expected: ");
  std::istringstream in(colon == std::string::npos ? std::string() : msg.substr(colon + 10));
  for (std::string w; in >> w;) extras.push_back(w);
  std::reverse(extras.begin(), extras.end());  // CLI11 2.1 lists them last first
  return extras;
}

// The word typed right after the option's last `name` (or after "name="), if any.
std::optional<std::string> typed_after(const std::vector<std::string>& args, const std::string& name) {
  std::optional<std::string> typed;
  for (std::size_t i = 0; i < args.size() && args[i] != "--"; ++i) {
    if (args[i] == name && i + 1 < args.size()) typed = args[i + 1];
    else if (args[i].rfind(name + "=", 0) == 0) typed = args[i].substr(name.size() + 1);
  }
  return typed;
}

// A list option given only its delimiter ("--delays ,") holds no item, and CLI11 then takes the
// next word, an option, as its value: the value to blame is what was typed.
bool only_delimiters(const std::string& typed, char delimiter) {
  return delimiter != '\0' && !typed.empty() && typed.find_first_not_of(delimiter) == std::string::npos;
}

std::string extras_message(const CLI::App& app, const std::string& msg) {
  const std::vector<std::string> extras = extra_words(app, msg);
  if (extras.empty()) return printable_text(msg);
  const CLI::App* command = command_of(app);
  const std::string& first = extras.front();
  std::string out;
  if (first.rfind("-", 0) == 0 && first.size() > 1) {
    const std::string name = first.substr(0, first.find('='));
    // A typo of one of its options: say which, and no more.
    std::vector<std::string> known;
    for (const CLI::App* a : {command, &app})
      for (const CLI::Option* o : a->get_options())
        for (const std::string& l : o->get_lnames()) known.push_back("--" + l);
    if (const std::string meant = did_you_mean(name, known); !meant.empty())
      return shown_value(name) + ": no such option for " + command_line(app) + did_you_mean_text(name, known) +
             "; accepted: the options " + command_line(app) + " --help lists";
    out = shown_value(name) + ": no such option for " + command_line(app);
    std::string owners;
    for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
      if (s != command && s->get_option_no_throw(name) != nullptr) owners += (owners.empty() ? "" : ", ") + s->get_name();
    if (!owners.empty()) out += " (" + name + " is an option of " + owners + ")";
    out += "; accepted: ";
    if (command != &app) out += command->get_name() + "'s options " + option_list(*command) + ", and ";
    out += "the options of every command " + option_list(app);
  } else if (command == &app) {
    std::vector<std::string> commands;
    std::string names;
    for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; })) {
      names += (names.empty() ? "" : ", ") + s->get_name();
      commands.push_back(s->get_name());
    }
    // A typo of a command: name it, not all nineteen.
    if (!did_you_mean(first, commands).empty())
      return shown_value(first) + ": no such command" + did_you_mean_text(first, commands) +
             "; accepted: the commands cudasync --help lists";
    out = shown_value(first) + ": no such command; accepted: " + names;
  } else {
    out = shown_value(first) + ": unexpected argument for " + command_line(app) +
          " (a value goes right after its option: --option VALUE or --option=VALUE); accepted: the options " +
          option_list(*command) + ", and " + option_list(app);
  }
  if (extras.size() > 1) {
    out += " (unexpected too:";
    for (std::size_t i = 1; i < extras.size() && i < 6; ++i) out += " " + shown_value(extras[i]);
    if (extras.size() > 6) out += " ...";
    out += ")";
  }
  return out;
}

// The values the command's positionals hold, in the order CLI11 fills them, and whether every
// positional has all it takes.
std::vector<std::string> positional_values(const CLI::App& command, bool& full) {
  std::vector<std::string> values;
  full = true;
  for (const CLI::Option* o : command.get_options([](const CLI::Option* x) { return x->get_positional(); })) {
    values.insert(values.end(), o->results().begin(), o->results().end());
    if (static_cast<int>(o->count()) < o->get_items_expected_max()) full = false;
  }
  return values;
}

std::string positional_names(const CLI::App& command) {
  std::string names;
  for (const CLI::Option* o : command.get_options([](const CLI::Option* x) { return x->get_positional(); }))
    names += (names.empty() ? "" : " ") + o->get_name();
  return names;
}

}  // namespace

std::optional<std::string> after_dashes_problem(const CLI::App& app, const std::vector<std::string>& args) {
  const auto dashes = std::find(args.begin(), args.end(), "--");
  if (dashes == args.end()) return std::nullopt;
  const std::vector<std::string> after(dashes + 1, args.end());
  const CLI::App& command = *command_of(app);
  bool full = false;
  const std::vector<std::string> values = positional_values(command, full);
  // CLI11 gives the words after "--" to the positionals in order, after those given before it:
  // the longest start of `after` that ends `values` went there.
  std::size_t taken = std::min(after.size(), values.size());
  while (taken > 0 && !std::equal(after.begin(), after.begin() + static_cast<std::ptrdiff_t>(taken),
                                  values.end() - static_cast<std::ptrdiff_t>(taken)))
    --taken;
  if (taken == after.size() || !full) return std::nullopt;  // a positional still open: CLI11 judges the rest
  const std::string names = positional_names(command);
  const std::string name = command_line(app);
  return shown_value(after[taken]) + ": unexpected after '--' in " + name +
         ": after '--' every word is an argument of the command, never an option or a command; accepted: options "
         "before '--', and after it " +
         (names.empty() ? std::string("nothing (") + name + " takes no arguments)"
                        : "only " + name + "'s arguments (" + names + ")");
}

std::optional<std::string> empty_inline_value(const CLI::App& app, const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a.size() < 4 || a.rfind("--", 0) != 0 || a.back() != '=' || a.find('=') != a.size() - 1) continue;
    const std::string name = a.substr(0, a.size() - 1);
    for (const CLI::App* owner : apps_in_order(app)) {
      const CLI::Option* o = owner->get_option_no_throw(name);
      if (o == nullptr || o->get_expected_max() == 0) continue;
      return a + " gives no value; accepted: " + name + "=VALUE or " + name + " VALUE, the value " + accepted_text(*o) +
             " (see " + app.get_name() + (owner == &app ? "" : " " + owner->get_name()) + " --help)";
    }
  }
  return std::nullopt;
}

std::optional<std::string> empty_list_item(const CLI::App& app, const std::vector<std::string>& args) {
  // Before the parse: the command is the first word, when it names one.
  std::vector<const CLI::App*> owners;
  if (!args.empty())
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
      if (sub->check_name(args[0])) owners.push_back(sub);
  owners.push_back(&app);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (a.size() < 3 || a.rfind("--", 0) != 0) continue;
    const std::size_t eq = a.find('=');
    const std::string name = a.substr(0, eq);
    for (const CLI::App* owner : owners) {
      const CLI::Option* o = owner->get_option_no_throw(name);
      if (o == nullptr || o->get_delimiter() != ',') continue;
      const std::string value = eq != std::string::npos ? a.substr(eq + 1) : i + 1 < args.size() ? args[i + 1] : "";
      // No value, or only commas: CLI11's own error, or "no item in the list" (usage_message).
      if (value.find_first_not_of(',') == std::string::npos) break;
      if (value.find(",,") == std::string::npos && value.front() != ',' && value.back() != ',') break;
      return name + " " + shown_value(value) + ": an empty item in the list; accepted: " + accepted_text(*o) +
             ", comma-separated (see " + app.get_name() + (owner == &app ? "" : " " + owner->get_name()) + " --help)";
    }
  }
  return std::nullopt;
}

std::optional<std::string> empty_value_problem(const CLI::App& app) {
  const CLI::App* command = command_of(app);
  for (const CLI::App* a : {command, &app}) {
    for (const CLI::Option* o : a->get_options()) {
      if (o->get_positional() || o->get_expected_max() == 0) continue;  // flags; positionals judge their own
      const auto& results = o->results();
      if (std::find(results.begin(), results.end(), std::string()) == results.end()) continue;
      return typed_name(*o) + " '': an empty value; accepted: " + accepted_text(*o) + " (see " + command_line(app) +
             " --help)";
    }
    if (command == &app) break;
  }
  return std::nullopt;
}

bool is_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = printable_utf8_at(s, i);
    if (n == 0) {
      // A valid C1 control is still UTF-8: only the encoding matters here.
      if (c == 0xc2 && i + 1 < s.size() && (static_cast<unsigned char>(s[i + 1]) & 0xe0) == 0x80) {
        i += 2;
        continue;
      }
      return false;
    }
    i += n;
  }
  return true;
}

std::string printable_text(std::string_view v, std::size_t limit) {
  const Escaped e = escape(v, limit, false);
  return e.text + (e.cut ? cut_note(v) : "");
}

std::string message_text(std::string_view v, std::size_t limit) {
  std::string shortened;
  std::size_t i = 0;
  while (i < v.size()) {
    const std::size_t start = v.find_first_not_of(" \n", i);
    if (start == std::string_view::npos) {
      shortened.append(v.substr(i));
      break;
    }
    shortened.append(v.substr(i, start - i));
    std::size_t end = v.find_first_of(" \n", start);
    if (end == std::string_view::npos) end = v.size();
    std::string_view word = v.substr(start, end - start);
    // The punctuation after a quoted value belongs to the sentence: it stays ("'AAA...';").
    const std::size_t kept = word.find_last_not_of(";,:.");
    const std::string_view punctuation = kept == std::string_view::npos ? word.substr(0, 0) : word.substr(kept + 1);
    word.remove_suffix(punctuation.size());
    shortened += word.size() > kLongWord ? printable_text(word, kShownChars) : std::string(word);
    shortened += punctuation;
    i = end;
  }
  const Escaped e = escape(shortened, limit, false);
  if (!e.cut) return e.text;
  // Cut: what is accepted, at the end, still shows.
  const auto accepted = shortened.rfind("accepted:");
  const std::string tail = accepted == std::string::npos ? std::string() : " ... " + printable_text(shortened.substr(accepted), limit);
  return e.text + cut_note(shortened) + tail;
}

std::string shown_value(std::string_view v) {
  const Escaped e = escape(v, kShownChars, true);
  std::string out;
  if (e.escaped) {
    out = "$'" + e.text + "'";  // as bash reads it back
  } else if (!e.plain || v.empty()) {
    out = "'";
    for (const char c : escape(v, kShownChars, false).text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += "'";
  } else {
    out = e.text;
  }
  return out + (e.cut ? cut_note(v) : "");
}

std::string usage_message(const CLI::App& app, const CLI::Error& e, const std::vector<std::string>& args) {
  const std::string msg = e.what();
  const std::string help = " (see " + command_line(app) + " --help)";
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) return extras_message(app, msg) + help;

  const Match m = find_option(app, msg, args);
  if (!m.option) return message_text(msg, 400) + help;
  const CLI::Option& o = *m.option;
  const std::string name = typed_name(o);
  const std::string accepted = accepted_text(o);
  if (m.required) return command_line(app) + " needs " + name + "; accepted: " + accepted + help;
  if (m.missing_value) return name + " needs a value; accepted: " + accepted + help;
  std::string value = given_value(o, m.reason);
  std::string reason = plain_reason(m.reason, value);
  const auto typed = typed_after(args, name);
  if (typed && only_delimiters(*typed, o.get_delimiter())) {
    value = *typed;
    reason = "no item in the list";
  }
  const std::string shown_reason = message_text(reason, 400);
  // A word of a fixed set ("TEXT:{a,b,c}") mistyped: the nearest, for the first item not in it.
  std::string hint;
  const std::string type = o.get_type_name();
  if (const auto open = type.find('{'), close = type.rfind('}');
      reason.find("did you mean") == std::string::npos && open != std::string::npos && close != std::string::npos && close > open) {
    std::vector<std::string> values;
    std::string item;
    for (char c : type.substr(open + 1, close - open - 1) + ",") {
      if (c == ',') {
        const auto arrow = item.find("->");
        std::string v = arrow == std::string::npos ? item : item.substr(0, arrow);
        v.erase(0, v.find_first_not_of(' '));
        while (!v.empty() && v.back() == ' ') v.pop_back();
        if (!v.empty()) values.push_back(v);
        item.clear();
      } else {
        item += c;
      }
    }
    std::string given;
    for (char c : value + ",") {
      if (c == ',' || c == o.get_delimiter()) {
        const bool word = given.find_first_of("abcdefghijklmnopqrstuvwxyz") != std::string::npos;
        if (word && std::find(values.begin(), values.end(), given) == values.end()) {
          hint = did_you_mean_text(given, values);
          break;
        }
        given.clear();
      } else {
        given += c;
      }
    }
  }
  std::string out = name + " " + shown_value(value) + ": " + shown_reason + hint;
  if (shown_reason.find("accepted:") == std::string::npos) out += "; accepted: " + accepted;
  return out + help;
}

}  // namespace cudasync::cli
