// The man page (man(7) macros), from the spec: commands, the program's options, each lesson with
// its parts and options, the other commands' options, the exit codes from the help footer.
#include <cctype>
#include <sstream>

#include "clidocs/clidocs.hpp"

namespace cudasync::clidocs {

namespace {

// Text for roff: backslashes escaped, a line never starting with a control character.
std::string roff(const std::string& text) {
  std::string out;
  for (const char c : text) out += c == '\\' ? std::string("\\e") : std::string(1, c);
  std::string lines, line;
  std::istringstream in(out);
  while (std::getline(in, line)) {
    if (!line.empty() && (line[0] == '.' || line[0] == '\'')) line = "\\&" + line;
    lines += line + "\n";
  }
  if (!lines.empty() && out.back() != '\n') lines.pop_back();
  return lines;
}

std::string upper(std::string s) {
  for (auto& c : s) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Values short enough to show in the option's head: "auto|gpu|model".
bool short_list(const Option& o) { return join(o.values, "|").size() <= 24; }

// An option name or a literal word: dashes as minus signs, so copy and paste give ASCII hyphens.
std::string literal(const std::string& word) {
  std::string out;
  for (const char c : word) out += c == '-' ? std::string("\\-") : c == '\\' ? std::string("\\e") : std::string(1, c);
  return out;
}

std::string bold(const std::string& word) { return "\\fB" + literal(word) + "\\fR"; }
std::string italic(const std::string& word) { return "\\fI" + literal(word) + "\\fR"; }

// "\fB\-v\fR, \fB\-\-verbose\fR", "\fB\-\-backend\fR \fIauto\fR|\fIgpu\fR|\fImodel\fR"
std::string option_head(const Option& o) {
  std::vector<std::string> names;
  for (const auto& w : o.words()) names.push_back(bold(w));
  std::string head = join(names, ", ");
  if (o.positional) head = italic(o.name);
  std::string value;
  if (!o.values.empty() && short_list(o)) {
    std::vector<std::string> vs;
    for (const auto& v : o.values) vs.push_back(italic(v));
    value = join(vs, "|");
  } else if (!o.values.empty()) {
    value = italic(o.longs.empty() ? "VALUE" : upper(o.longs.front()));
  } else {
    value = italic(o.metavar());
  }
  if (!o.delimiter.empty()) value += literal(o.delimiter) + "...";
  if (o.takes_value && !o.positional) head += " " + value;
  if (o.optional_value) head += "[=" + italic("VALUE") + "]";
  return head;
}

std::string option_body(const Option& o) {
  std::string body = roff(o.description);
  if (!body.empty() && body.back() != '.') body += ".";
  if (!o.values.empty() && (!short_list(o) || o.positional)) body += " Values: " + roff(join(o.values, ", ")) + ".";
  if (o.min && o.max && o.values.empty()) {
    std::ostringstream r;
    r << " Range: " << *o.min << " to " << *o.max << ".";
    body += r.str();
  }
  if (!o.default_value.empty()) body += " Default: " + roff(o.default_value) + ".";
  if (o.multiple && !o.takes_value) body += " May be repeated.";
  return body;
}

void options_block(std::ostringstream& m, const std::vector<const Option*>& options) {
  for (const Option* o : options) m << ".TP\n" << option_head(*o) << "\n" << option_body(*o) << "\n";
}

// "Exit codes:\n  0   ok\n  1   a check failed ...,\n      or ..." -> .TP per code.
void exit_status(std::ostringstream& m, const std::string& footer) {
  std::istringstream in(footer);
  std::string line;
  bool open = false;
  while (std::getline(in, line)) {
    std::size_t i = line.find_first_not_of(' ');
    if (i == std::string::npos) continue;
    if (std::isdigit(static_cast<unsigned char>(line[i]))) {
      std::size_t j = i;
      while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
      const std::size_t text = line.find_first_not_of(' ', j);
      m << ".TP\n.B " << line.substr(i, j - i) << "\n" << roff(text == std::string::npos ? "" : line.substr(text)) << "\n";
      open = true;
    } else if (open) {
      m << roff(line.substr(i)) << "\n";
    }
  }
}

}  // namespace

std::string man_page(const Spec& s) {
  std::ostringstream m;
  std::string summary = s.description;
  if (summary.rfind(s.program + ": ", 0) == 0) summary = summary.substr(s.program.size() + 2);
  if (!summary.empty() && summary.back() == '.') summary.pop_back();

  m << ".\\\" Generated from `" << s.program << " --cli-spec` by cudasync-clidocs (src/clidocs). Do not edit.\n";
  m << ".TH " << upper(s.program) << " 1 \"\" \"" << s.program << " " << s.version << "\" \"User Commands\"\n";
  m << ".SH NAME\n" << s.program << " \\- " << roff(summary) << "\n";
  m << ".SH SYNOPSIS\n.B " << s.program << "\n[\\fIOPTIONS\\fR] [\\fICOMMAND\\fR [\\fICOMMAND OPTIONS\\fR]]\n";
  m << ".SH DESCRIPTION\n"
    << "Each lesson runs one GPU synchronization technique on an NVIDIA GPU, shows what every lane, warp or "
    << "block did, checks the GPU against a CPU reference model, measures its cost beside NVIDIA's built-in and "
    << "says why. Without a GPU, every lesson runs on the reference model.\n.PP\n"
    << "Without a command, " << bold(s.program) << " lists the lessons and whether this machine has a GPU.";
  if (s.options_after_command) m << " The options below are accepted after a command's name too.";
  m << "\n.SH COMMANDS\n";
  for (const Command* c : s.visible_commands())
    m << ".TP\n" << bold(c->name) << (c->lesson ? " (lesson)" : "") << "\n" << roff(c->summary) << "\n";
  m << ".SH OPTIONS\n";
  options_block(m, s.visible_options());

  m << ".SH LESSONS\n"
    << "Each lesson takes the options above and its own; " << bold("--part") << " picks parts (comma-separated); "
    << bold("cudasync explain") << " " << italic("lesson") << " prints its text.\n";
  for (const Command* c : s.visible_commands()) {
    if (!c->lesson) continue;
    m << ".SS " << literal(c->name) << "\n" << roff(c->summary) << "\n";
    if (!c->parts.empty()) {
      m << ".PP\nParts:\n.RS\n";
      for (const auto& p : c->parts)
        m << ".TP\n" << bold(p.id) << "\n" << roff(p.summary) << (p.needs_gpu ? " [needs a GPU]" : "")
          << (p.by_default ? "" : " [only with --part]") << "\n";
      m << ".RE\n";
    }
    const auto opts = c->visible_options();
    if (!opts.empty()) {
      m << ".PP\nOptions:\n.RS\n";
      options_block(m, opts);
      m << ".RE\n";
    }
  }
  bool other = false;
  for (const Command* c : s.visible_commands()) {
    if (c->lesson) continue;
    std::vector<const Option*> opts = c->positionals();
    for (const Option* o : c->visible_options())
      if (o->longs != std::vector<std::string>{"help"}) opts.push_back(o);
    if (opts.empty()) continue;
    if (!other) m << ".SH \"OTHER COMMANDS\"\n";
    other = true;
    m << ".SS " << literal(c->name) << "\n" << roff(c->summary) << "\n.RS\n";
    options_block(m, opts);
    m << ".RE\n";
  }
  if (!s.footer.empty()) {
    m << ".SH \"EXIT STATUS\"\n";
    exit_status(m, s.footer);
  }
  m << ".SH FILES\n.TP\n.I share/cudasync/schema/\n"
    << "The JSON schema of " << bold("--json") << " documents, under the installation prefix.\n"
    << ".TP\n.I share/doc/cudasync/\nREADME, the lesson texts, measurements, licence and notice.\n";
  m << ".SH \"SEE ALSO\"\n" << bold("cudasync explain") << " " << italic("lesson") << ", " << bold("cudasync doctor")
    << ", nvidia-smi(1)\n";
  return m.str();
}

}  // namespace cudasync::clidocs
