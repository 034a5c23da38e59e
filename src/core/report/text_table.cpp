#include "core/report/text_table.hpp"

#include <algorithm>
#include <numeric>
#include <optional>

#include "core/report/ansi.hpp"
#include "core/report/text_width.hpp"

namespace cudasync::report {

namespace {

constexpr std::size_t kGap = 2;       // spaces between columns
constexpr std::size_t kMinText = 16;  // a text column wraps no narrower (unless it is narrower)
constexpr std::size_t kMaxWord = 30;  // a longer word is broken rather than widen its column
using ansi::kReset;

struct Widths {
  std::vector<std::size_t> natural, minimum;
};

Widths widths_of(const TextTable& t) {
  Widths w;
  for (std::size_t c = 0; c < t.headers.size(); ++c) {
    std::size_t nat = display_width(t.headers[c]);
    std::size_t word = longest_piece(t.headers[c]);
    for (const auto& r : t.rows) {
      nat = std::max(nat, display_width(r[c]));
      word = std::max(word, longest_piece(r[c]));
    }
    w.natural.push_back(nat);
    const bool right = c < t.right.size() && t.right[c];
    w.minimum.push_back(right ? nat : std::min(nat, std::max(kMinText, std::min(word, kMaxWord))));
  }
  return w;
}

std::size_t span(const std::vector<std::size_t>& w, std::size_t indent) {
  return indent + std::accumulate(w.begin(), w.end(), std::size_t{0}) + (w.empty() ? 0 : kGap * (w.size() - 1));
}

// Lines a column takes at width w, over the header and every row.
std::size_t height_at(const TextTable& t, std::size_t c, std::size_t w) {
  std::size_t h = wrap_text(t.headers[c], w).size();
  for (const auto& r : t.rows) h += wrap_text(r[c], w).size();
  return h;
}

// Widths for `cols` that fit `width`: text columns give up a column at a time, down to their
// minimum, each time the one whose wrapping adds the fewest lines (the widest among equals).
// nullopt when even the minimums do not fit.
std::optional<std::vector<std::size_t>> fit(const TextTable& t, const std::vector<std::size_t>& cols, const Widths& w,
                                            std::size_t width, std::size_t indent) {
  std::vector<std::size_t> cur, lo;
  for (std::size_t c : cols) {
    cur.push_back(w.natural[c]);
    lo.push_back(w.minimum[c]);
  }
  if (span(lo, indent) > width) return std::nullopt;
  std::vector<std::size_t> height(cur.size());
  for (std::size_t i = 0; i < cur.size(); ++i) height[i] = cur[i] > lo[i] ? height_at(t, cols[i], cur[i]) : 0;
  while (span(cur, indent) > width) {
    std::size_t best = cur.size(), best_cost = 0, best_height = 0;
    for (std::size_t i = 0; i < cur.size(); ++i) {
      if (cur[i] <= lo[i]) continue;
      const std::size_t h = height_at(t, cols[i], cur[i] - 1);
      const std::size_t cost = h - std::min(h, height[i]);
      if (best == cur.size() || cost < best_cost || (cost == best_cost && cur[i] > cur[best])) {
        best = i;
        best_cost = cost;
        best_height = h;
      }
    }
    --cur[best];
    height[best] = best_height;
  }
  return cur;
}

std::string painted(const std::string& indent, std::string line, const std::string& paint) {
  line = trim_right(std::move(line));
  if (paint.empty() || line.empty()) return indent + line;
  return indent + paint + line + kReset;
}

// One block: the header (wrapped where a title is wider than its column) and every row.
void render_block(const TextTable& t, const std::vector<std::size_t>& cols, const std::vector<std::size_t>& widths,
                  std::size_t indent, std::vector<std::string>& out) {
  const std::string pad(indent, ' ');
  const auto emit = [&](const std::vector<std::string>& texts, const std::string& paint) {
    std::vector<std::vector<std::string>> wrapped;
    std::size_t height = 1;
    for (std::size_t i = 0; i < cols.size(); ++i) {
      wrapped.push_back(wrap_text(texts[i], widths[i]));
      height = std::max(height, wrapped.back().size());
    }
    for (std::size_t line = 0; line < height; ++line) {
      std::string s;
      for (std::size_t i = 0; i < cols.size(); ++i) {
        const std::string cell = line < wrapped[i].size() ? wrapped[i][line] : "";
        const bool right = cols[i] < t.right.size() && t.right[cols[i]];
        s += (i ? std::string(kGap, ' ') : "") + (right ? pad_left(cell, widths[i]) : pad_right(cell, widths[i]));
      }
      out.push_back(painted(pad, s, paint));
    }
  };
  std::vector<std::string> header;
  for (std::size_t c : cols) header.push_back(t.headers[c]);
  emit(header, "");
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    std::vector<std::string> cells;
    for (std::size_t c : cols) cells.push_back(t.rows[r][c]);
    emit(cells, r < t.paint.size() ? t.paint[r] : "");
  }
}

// Step-major: the key columns on one line, then "title  value" for every other column.
void render_records(const TextTable& t, std::size_t keys, std::size_t width, std::size_t indent,
                    std::vector<std::string>& out) {
  const std::string pad(indent, ' '), inner(indent + 4, ' ');
  std::size_t label = 0;
  for (std::size_t c = keys; c < t.headers.size(); ++c) label = std::max(label, display_width(t.headers[c]));
  label = std::min(label, width / 3);
  const std::size_t room = width > indent + 4 + label + kGap + 8 ? width - indent - 4 - label - kGap : 8;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const std::string paint = r < t.paint.size() ? t.paint[r] : "";
    if (r) out.emplace_back();
    std::string head;
    for (std::size_t c = 0; c < keys; ++c) head += (c ? ", " : "") + t.headers[c] + " " + t.rows[r][c];
    for (const auto& l : wrap_text(head, width - indent)) out.push_back(painted(pad, l, paint));
    for (std::size_t c = keys; c < t.headers.size(); ++c) {
      const std::vector<std::string> title = wrap_text(t.headers[c], label);
      const std::vector<std::string> value = wrap_text(t.rows[r][c], room);
      for (std::size_t l = 0; l < std::max(title.size(), value.size()); ++l) {
        const std::string left = l < title.size() ? title[l] : "";
        const std::string right = l < value.size() ? value[l] : "";
        out.push_back(painted(inner, pad_right(left, label) + std::string(kGap, ' ') + right, paint));
      }
    }
  }
}

std::size_t lines_of(const TextTable& t, const std::vector<std::size_t>& cols, const std::vector<std::size_t>& widths) {
  std::size_t total = 0;
  for (std::size_t r = 0; r <= t.rows.size(); ++r) {
    std::size_t h = 1;
    for (std::size_t i = 0; i < cols.size(); ++i)
      h = std::max(h, wrap_text(r == 0 ? t.headers[cols[i]] : t.rows[r - 1][cols[i]], widths[i]).size());
    total += h;
  }
  return total;
}

// The blocks of a folded table: the key columns, then the others cut into consecutive runs, the
// cut that takes the fewest lines (each run wrapped to fit). Empty when a column does not fit
// beside the keys even wrapped.
std::vector<std::vector<std::size_t>> fold_blocks(const TextTable& t, const Widths& w, std::size_t keys,
                                                  std::size_t width, std::size_t indent) {
  const std::size_t m = t.headers.size() - keys;  // columns to place
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  const auto block = [&](std::size_t i, std::size_t j) {  // keys + non-key columns [i, j)
    std::vector<std::size_t> b(keys);
    std::iota(b.begin(), b.end(), 0);
    for (std::size_t c = i; c < j; ++c) b.push_back(keys + c);
    return b;
  };
  std::vector<std::size_t> best(m + 1, kNone), from(m + 1, 0);
  best[0] = 0;
  for (std::size_t j = 1; j <= m; ++j)
    for (std::size_t i = j; i-- > 0;) {
      if (best[i] == kNone) continue;
      const auto b = block(i, j);
      const auto widths = fit(t, b, w, width, indent);
      if (!widths) break;  // wider still with more columns
      const std::size_t cost = best[i] + lines_of(t, b, *widths) + 1;
      if (cost < best[j]) {
        best[j] = cost;
        from[j] = i;
      }
    }
  if (best[m] == kNone) return {};
  std::vector<std::vector<std::size_t>> blocks;
  for (std::size_t j = m; j > 0; j = from[j]) blocks.insert(blocks.begin(), block(from[j], j));
  return blocks;
}

}  // namespace

std::vector<std::string> layout_table(const TextTable& t, std::size_t width, std::size_t indent) {
  std::vector<std::string> out;
  const std::size_t n = t.headers.size();
  if (n == 0) return out;
  const Widths w = widths_of(t);
  std::vector<std::size_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  const auto wrapped = fit(t, all, w, width, indent);
  if (wrapped && span(*wrapped, indent) == span(w.natural, indent)) {  // fits as it is
    render_block(t, all, *wrapped, indent, out);
    return out;
  }
  const std::size_t keys = std::min(t.keys, n - 1);
  if (t.fold == Fold::records) {
    render_records(t, keys, width, indent, out);
    return out;
  }
  const auto blocks = fold_blocks(t, w, keys, width, indent);
  if (blocks.empty() && !wrapped) {
    render_records(t, keys, width, indent, out);
    return out;
  }
  // Wrapped in place, unless folding saves a fifth of the lines (a reader matches rows across
  // blocks by their keys, which costs more than reading a wrapped cell).
  std::size_t fold_lines = 0;
  for (const auto& b : blocks) fold_lines += lines_of(t, b, *fit(t, b, w, width, indent)) + 1;
  if (wrapped && (blocks.empty() || fold_lines * 5 >= lines_of(t, all, *wrapped) * 4)) {
    render_block(t, all, *wrapped, indent, out);
    return out;
  }
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    if (b) out.emplace_back();
    render_block(t, blocks[b], *fit(t, blocks[b], w, width, indent), indent, out);
  }
  return out;
}

}  // namespace cudasync::report
