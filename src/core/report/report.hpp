#pragma once
// The Report: what one run found, as plain data. Lessons fill it; renderers (text, JSON) print it;
// nothing here knows about CUDA, terminals or JSON.
//
// Numbers stay numbers: a value carries a Format (what kind of number it is) and the renderers
// decide digits, separators and units (nvbench's summaries: raw value + hint; printers format).
// Every section, fact, table, column, measurement and check has a stable kebab-case id, so tests
// and `jq` find it without reading English:
//
//   Section s("shfl-down", "__shfl_down_sync(mask, var, 2, 8)");
//   s.fact("sum", "sum of the calling lanes", std::int64_t{496}, Format::count);
//   Table t("lanes", "what each lane received");
//   t.column("lane", "lane").column("model", "model");
//   t.row({{"lane", 5}, {"model", 7}});        // lane 5 received lane 7's value
//   s.add(std::move(t));
//   s.agreement("gpu-agrees", "every lane", true, "32 lanes agree");
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace cudasync::report {

// A lane outside the mask has no defined value: "-" in text, null in JSON, never zero.
struct Undefined {};
// Only a GPU can give this value and the run had none: "needs a GPU" in text, null in JSON with
// the owner marked needs_gpu.
struct NeedsGpu {};
using Value = std::variant<Undefined, NeedsGpu, bool, std::int64_t, double, std::string>;

bool is_number(const Value& v);

// What kind of number a value is. The text renderer formats by it; JSON writes the bare number and
// the format's name, so a reader knows 0.925 is a ratio and 331 a duration in ns.
enum class Format {
  plain,    // integers whole; reals to three decimals (or in e-notation when tiny or huge)
  count,    // a count of things: 1,081,344
  exact,    // a real as it round-trips (%.17g): a sum that must match bit for bit
  hex32,    // a 32-bit mask: 0x0000ffff
  bin32,    // a 32-bit mask: 00000000_00000000_11111111_11111111
  ns,       // nanoseconds
  ms,       // milliseconds: a deadline, a launch that waits for one
  cycles,   // SM clock cycles
  gbps,     // gigabytes (1e9) per second
  ratio,    // a multiple of a baseline: 0.925 x
  percent,  // a fraction 0..1, shown as 99.6%
  bytes,    // a size: 4.0 GiB
  error,    // a relative error or bound: 1.192e-07
};
const char* to_string(Format f);  // "ns", "ratio", ...
const char* unit_of(Format f);    // "ns", "x", "GB/s", ... ("" for plain, count, exact, masks)

// Why a row (a lane) is drawn differently. JSON writes these names; the text renderer colours them.
enum class RowMark {
  none,
  inactive,       // lane did not take part (outside the mask or beyond the block): value undefined
  kept_own,       // source lane fell outside the lane's width segment: it kept its own value
  undefined_src,  // source lane was inactive, so CUDA leaves the value undefined
  mismatch,       // GPU and reference model disagree on this lane
};
const char* to_string(RowMark mark);

// Ids are kebab-case: lower-case letters and digits in words joined by single dashes.
bool is_id(std::string_view id);

struct Column {
  std::string key;    // kebab-case id: the JSON key of the cells
  std::string title;  // the text header
  Format format = Format::plain;
};

struct Row {
  std::vector<Value> cells;  // one per column, in column order
  RowMark mark = RowMark::none;
};

// How a table too wide for the terminal folds in text (JSON, Markdown, CSV and HTML keep it whole).
enum class Fold {
  columns,  // the key columns, then as many others as fit; the rest in further blocks below
  records,  // one block of lines per row ("step 3" then "lane 0  ...", one line per column)
};

// What a table shows when it is a picture by nature. The HTML renderer draws it (an SVG beside the
// table); JSON names it; text, Markdown and CSV keep the table. Roles name columns by key.
enum class PictureKind {
  none,
  shuffle,   // lane, source: an arrow from the source lane to each receiving lane, in width segments
  timeline,  // row, start, end: one bar per row (block) from its arrival to its release
  outcomes,  // label..., series (one column per outcome), allowed (the allowed outcomes' titles)
  grid,      // row (the step), series (one column per lane): a step-by-lane grid of what each did
  bars,      // label, series (value columns): bars, the baseline row's beside each
  graph,     // from, to, label: a wait-for graph, one arrow per row from the waiter to what it waits for
  tree,      // step, offset: a reduction tree, one row per step; thread t < offset adds element t + offset
};
const char* to_string(PictureKind kind);

struct Picture {
  PictureKind kind = PictureKind::none;
  std::vector<std::pair<std::string, std::string>> roles;  // role -> column key: {"lane", "thread"}
  std::vector<std::string> series;                         // column keys: a grid's lanes, bars' values
  std::vector<std::string> labels;                         // column keys naming a row: "test", "fence"
  std::vector<std::string> names;                          // outcomes: the outcomes, one per series column
  std::int64_t width = 0;                                  // shuffle: lanes per segment
  std::string baseline;                                    // bars: the first label of the baseline row

  explicit operator bool() const { return kind != PictureKind::none; }
  std::string role(std::string_view name) const;  // the column key, "" when absent
};

// The pictures lessons set on their tables (t.picture = report::shuffle_picture("thread", "source-lane", 8)).
// shuffle: `value` (what each lane holds) and `result` (what it received) label the boxes, optional.
Picture shuffle_picture(std::string lane, std::string source, std::int64_t width, std::string value = "",
                        std::string result = "");
Picture timeline_picture(std::string row, std::string start, std::string end);
// outcomes: `allowed` is a column listing the allowed outcomes by name ("10 11"); `counts` the
// columns of how often each outcome appeared, in the order of `names` (none on a model run).
// `impossible`, optional: a column listing the outcomes no execution of the test can give (the
// reader waits for the flag, say), drawn as such rather than as forbidden.
Picture outcomes_picture(std::vector<std::string> labels, std::vector<std::string> names, std::string allowed,
                         std::vector<std::string> counts = {}, std::string impossible = "");
Picture grid_picture(std::string row, std::vector<std::string> lanes);
Picture bars_picture(std::vector<std::string> labels, std::vector<std::string> values, std::string baseline = "");
// graph: each row an edge from its `from` cell to its `to` cell (the nodes are the cells' texts),
// labelled by its `label` cell; an edge on a cycle drawn as such.
Picture graph_picture(std::string from, std::string to, std::string label);
// tree: each row a step of a tree reduction in shared memory, where thread t < `offset` adds
// element t + offset into element t (sequential addressing: the first row's offset is half the
// elements).
Picture tree_picture(std::string step, std::string offset);

// Rows are lanes (or warps, blocks, steps); cells are given by column key.
struct Table {
  Table() = default;
  Table(std::string table_id, std::string table_title) : id(std::move(table_id)), title(std::move(table_title)) {}

  std::string id;
  std::string title;
  std::vector<Column> columns;
  std::vector<Row> rows;
  std::vector<std::string> legend;  // lines printed under the table
  // Draw lanes across the page (as Fan's book prints them) instead of one row per lane.
  bool lanes_across = false;
  // Folding in a narrow terminal: the first `keys` columns are repeated in every block.
  std::size_t keys = 1;
  Fold fold = Fold::columns;
  Picture picture;  // optional

  Table& column(std::string key, std::string title, Format format = Format::plain);
  // A row by column key: {{"lane", 5}, {"model", 7}}. Columns not named are Undefined; a key that
  // names no column is a programming error (std::logic_error).
  Table& row(std::initializer_list<std::pair<std::string_view, Value>> cells, RowMark mark = RowMark::none);
  Table& row(const std::vector<std::pair<std::string, Value>>& cells, RowMark mark = RowMark::none);
  std::size_t column_index(std::string_view key) const;  // logic_error when absent
  const Value& cell(std::size_t row, std::string_view key) const;
};

// A scalar shown as "title  value": a ballot result, a sum, a count of stale reads.
struct Fact {
  std::string id;
  std::string title;
  Value value;
  Format format = Format::plain;
  std::string note;
};

// A measured quantity. Where only a GPU can measure it and the run had none, `samples` is empty
// and `needs_gpu` is true: the renderers say so instead of printing a number.
struct Measurement {
  std::string id;
  std::string title;
  Format format = Format::ns;  // the unit of every sample
  std::vector<double> samples;
  bool needs_gpu = false;
  std::string note;

  std::size_t repetitions() const { return samples.size(); }
  double median() const;
  double min() const;
  double max() const;
};

struct Check {
  std::string id;
  std::string title;
  bool passed = false;
  std::string detail;
};

// The median of samples (the mean of the middle two for an even count); 0 for none. The one
// definition every lesson and Measurement::median() use, so a table and a measurement agree.
double median(std::vector<double> samples);

// A measurement from a run: without a GPU (and so without samples) it is marked needs_gpu.
Measurement measured(std::string id, std::string title, Format format, std::vector<double> samples, bool gpu,
                     std::string note = "");

// The check every lesson makes of a GPU result; its title reads
// "GPU agrees with the reference model: <what>".
Check model_agreement(std::string id, const std::string& what, bool passed, std::string detail);

// A judgement a check shows: whether it passed, and the numbers that say why. Lessons' judges return
// it (pure functions, tested directly); a part hands it to Section::check or Section::agreement.
struct Verdict {
  bool passed = false;
  std::string detail;
};

struct Section {
  Section() = default;
  Section(std::string section_id, std::string section_title)
      : id(std::move(section_id)), title(std::move(section_title)) {}

  std::string id;
  std::string title;
  std::vector<std::string> paragraphs;  // short explanation printed above the tables
  std::vector<Fact> facts;
  std::vector<Table> tables;
  std::vector<Measurement> measurements;
  std::vector<Check> checks;
  std::vector<std::string> notes;

  void paragraph(std::string text) { paragraphs.push_back(std::move(text)); }
  void note(std::string text) { notes.push_back(std::move(text)); }
  void fact(std::string fact_id, std::string fact_title, Value value, Format format = Format::plain,
            std::string fact_note = "");
  void check(std::string check_id, std::string check_title, bool passed, std::string detail = "");
  void check(std::string check_id, std::string check_title, Verdict v) {
    check(std::move(check_id), std::move(check_title), v.passed, std::move(v.detail));
  }
  // Adds the model_agreement check and returns the mark of the row it judges: RowMark::mismatch
  // when the GPU disagreed, RowMark::none when it agreed.
  RowMark agreement(std::string check_id, const std::string& what, bool passed, std::string detail);
  RowMark agreement(std::string check_id, const std::string& what, Verdict v) {
    return agreement(std::move(check_id), what, v.passed, std::move(v.detail));
  }
  void add(Table table) { tables.push_back(std::move(table)); }
  void add(Measurement m) { measurements.push_back(std::move(m)); }
};

struct Waiver {
  std::string part;  // the part's id
  std::string reason;
};

struct Report {
  std::string command;  // the command that ran: a lesson's id, "list", "explain" ...
  std::string title;
  std::vector<Section> sections;
  std::vector<Waiver> waived;
  // A text shown whole, as written (a lesson for `explain`); most reports leave it empty.
  std::string document;
  // The document is Markdown (a lesson's text): text renders it for the terminal, HTML as HTML.
  bool document_markdown = false;

  std::size_t checks_passed() const;
  std::size_t checks_failed() const;
  bool has_checks() const { return checks_passed() + checks_failed() > 0; }
  // Every part asked for was waived on this GPU: the run exits 77.
  bool fully_waived() const { return sections.empty() && !waived.empty(); }
  const Section* section(std::string_view id) const;  // nullptr when absent
};

// Throws std::logic_error naming the first id that is not kebab-case or not unique in its scope
// (sections in a report; facts, tables, measurements, checks in a section; columns in a table).
// The JSON renderer calls it: ids are object keys there.
void validate_ids(const Report& report);

}  // namespace cudasync::report
