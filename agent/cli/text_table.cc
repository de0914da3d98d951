// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/text_table.h"

#include <algorithm>
#include <numeric>
#include <string_view>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace nictune::cli {
namespace {

// A text column is not wrapped narrower than this.
constexpr size_t kNarrowestColumn = 8;
// A number column's header breaks between words, and within a word only one longer than this (a
// metric name, which breaks after '_').
constexpr size_t kLongestUnbrokenHeaderWord = 12;

bool StartsCodePoint(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }

std::vector<std::string> CodePoints(const std::string& text) {
  std::vector<std::string> out;
  for (const char c : text) {
    if (StartsCodePoint(c) || out.empty()) {
      out.emplace_back(1, c);
    } else {
      out.back() += c;
    }
  }
  return out;
}

// A line may end after one of these when no space is in reach: paths and metric names have none.
bool BreaksAfter(const std::string& code_point) {
  return code_point.size() == 1 && std::string_view("/_-.,{").find(code_point[0]) !=
                                       std::string_view::npos;
}

std::string Joined(const std::vector<std::string>& code_points, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end; ++i) out += code_points[i];
  out.erase(out.find_last_not_of(' ') + 1);
  return out;
}

// How many code points from `start` the next line takes (the caller drops the spaces after).
size_t LineLength(const std::vector<std::string>& code_points, size_t start, size_t width) {
  // There are more than `width` code points from start, so start + width is one of them.
  for (size_t k = width; k >= 1; --k) {
    if (code_points[start + k] == " ") return k;
  }
  for (size_t k = width; k >= 1; --k) {
    if (BreaksAfter(code_points[start + k - 1])) return k;
  }
  return width;
}

size_t Total(const std::vector<size_t>& which, const std::vector<size_t>& widths) {
  size_t total = which.empty() ? 0 : kColumnGap * (which.size() - 1);
  for (const size_t c : which) total += widths[c];
  return total;
}

// The widths of `which` narrowed, the widest first, until they fit `max_width` or none can.
std::vector<size_t> Fit(const std::vector<size_t>& which, std::vector<size_t> widths,
                        const std::vector<size_t>& narrowest, size_t max_width) {
  while (Total(which, widths) > max_width) {
    const auto widest = std::max_element(which.begin(), which.end(), [&](size_t a, size_t b) {
      const size_t room_a = widths[a] > narrowest[a] ? widths[a] : 0;
      const size_t room_b = widths[b] > narrowest[b] ? widths[b] : 0;
      return room_a < room_b;
    });
    if (widest == which.end() || widths[*widest] <= narrowest[*widest]) break;
    --widths[*widest];
  }
  return widths;
}

}  // namespace

size_t DisplayWidth(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), StartsCodePoint));
}

std::vector<std::string> WrapToWidth(const std::string& text, size_t width) {
  width = std::max<size_t>(width, 1);
  const std::vector<std::string> code_points = CodePoints(text);
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < code_points.size()) {
    if (!lines.empty()) {
      while (start < code_points.size() && code_points[start] == " ") ++start;
      if (start == code_points.size()) break;
    }
    if (code_points.size() - start <= width) {
      lines.push_back(Joined(code_points, start, code_points.size()));
      break;
    }
    const size_t length = LineLength(code_points, start, width);
    lines.push_back(Joined(code_points, start, start + length));
    start += length;
  }
  if (lines.empty()) lines.emplace_back();
  return lines;
}

std::string WrapLines(const std::string& text, size_t width) {
  std::string out;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    const bool ended = end != std::string::npos;
    if (!ended) end = text.size();
    const std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    if (DisplayWidth(line) <= width) {
      out += line;
    } else {
      const size_t indent = std::min(line.find_first_not_of(' '), line.size());
      const size_t room =
          width > indent + 2 + kNarrowestColumn ? width - indent - 2 : kNarrowestColumn;
      const std::vector<std::string> pieces = WrapToWidth(line.substr(indent), room);
      for (size_t i = 0; i < pieces.size(); ++i) {
        if (i > 0) out += '\n';
        out += std::string(indent + (i > 0 ? 2 : 0), ' ') + pieces[i];
      }
    }
    if (ended) out += '\n';
  }
  return out;
}

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

size_t TextTable::WidthLeftFor(size_t which, size_t max_width) const {
  const std::vector<size_t> natural = NaturalWidths();
  size_t others = kColumnGap * (natural.size() - 1);
  for (size_t i = 0; i < natural.size(); ++i) {
    if (i != which) others += natural[i];
  }
  return max_width > others ? max_width - others : 0;
}

std::vector<size_t> TextTable::NaturalWidths() const {
  std::vector<size_t> widths;
  for (const Column& c : columns_) widths.push_back(DisplayWidth(c.header));
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], DisplayWidth(row[i]));
  }
  return widths;
}

// The widest cell of each column and the longest word of its header: a header wraps down to
// this before any cell does, so that a long header does not cut the names beneath it.
std::vector<size_t> TextTable::CellWidths() const {
  std::vector<size_t> widths;
  for (const Column& c : columns_) {
    size_t longest_word = 0;
    for (const absl::string_view word : absl::StrSplit(c.header, ' ')) {
      longest_word = std::max(longest_word, DisplayWidth(std::string(word)));
    }
    widths.push_back(longest_word);
  }
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], DisplayWidth(row[i]));
  }
  return widths;
}

// Text wraps down to kNarrowestColumn; a number never wraps, and its header as said above.
std::vector<size_t> TextTable::NarrowestWidths() const {
  const std::vector<size_t> natural = NaturalWidths();
  std::vector<size_t> narrowest;
  for (size_t i = 0; i < columns_.size(); ++i) {
    // A key column (a knob, a device) stays whole: it is what a reader looks for.
    if (columns_[i].align == Align::kLeft && i >= key_columns_) {
      narrowest.push_back(std::min(natural[i], kNarrowestColumn));
      continue;
    }
    size_t widest = 0;
    for (const absl::string_view word : absl::StrSplit(columns_[i].header, ' ')) {
      widest = std::max(widest, std::min(DisplayWidth(std::string(word)),
                                         kLongestUnbrokenHeaderWord));
    }
    for (const auto& row : rows_) widest = std::max(widest, DisplayWidth(row[i]));
    narrowest.push_back(widest);
  }
  return narrowest;
}

// Headers wrap first, then the widest text.
std::vector<size_t> TextTable::Fitted(const std::vector<size_t>& which,
                                      std::vector<size_t> widths, size_t max_width) const {
  const std::vector<size_t> narrowest = NarrowestWidths();
  std::vector<size_t> headers_wrapped = CellWidths();
  for (size_t i = 0; i < headers_wrapped.size(); ++i) {
    headers_wrapped[i] = std::max(headers_wrapped[i], narrowest[i]);
  }
  return Fit(which, Fit(which, std::move(widths), headers_wrapped, max_width), narrowest,
             max_width);
}

std::string TextTable::RenderColumns(const std::vector<size_t>& which, std::vector<size_t> widths,
                                     size_t max_width) const {
  widths = Fitted(which, std::move(widths), max_width);
  std::string out;
  auto append_row = [&](const std::vector<std::string>& cells) {
    std::vector<std::vector<std::string>> pieces;
    size_t height = 1;
    for (const size_t c : which) {
      pieces.push_back(DisplayWidth(cells[c]) <= widths[c] ? std::vector<std::string>{cells[c]}
                                                           : WrapToWidth(cells[c], widths[c]));
      height = std::max(height, pieces.back().size());
    }
    for (size_t line_no = 0; line_no < height; ++line_no) {
      std::string line;
      for (size_t j = 0; j < which.size(); ++j) {
        const size_t c = which[j];
        if (j > 0) line += std::string(kColumnGap, ' ');
        const std::string piece = line_no < pieces[j].size() ? pieces[j][line_no] : "";
        const std::string padding(widths[c] - std::min(widths[c], DisplayWidth(piece)), ' ');
        line += columns_[c].align == Align::kRight ? padding + piece : piece + padding;
      }
      line.erase(line.find_last_not_of(' ') + 1);
      out += line;
      out += '\n';
    }
  };
  std::vector<std::string> headers;
  for (const Column& c : columns_) headers.push_back(c.header);
  append_row(headers);
  for (const auto& row : rows_) append_row(row);
  return out;
}

std::string TextTable::Render(size_t max_width) const {
  const std::vector<size_t> natural = NaturalWidths();
  const std::vector<size_t> narrowest = NarrowestWidths();
  std::vector<size_t> all(columns_.size());
  std::iota(all.begin(), all.end(), size_t{0});
  const size_t keys = std::min(key_columns_, columns_.size());
  if (Total(all, Fitted(all, natural, max_width)) <= max_width ||
      all.size() <= keys + 1) {
    return RenderColumns(all, natural, max_width);
  }
  // Too wide even wrapped: blocks of the key columns and as many others as fit.
  std::string out;
  const std::vector<size_t> key_set(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(keys));
  std::vector<size_t> block = key_set;
  auto flush = [&] {
    if (!out.empty()) out += '\n';
    out += RenderColumns(block, natural, max_width);
  };
  for (size_t c = keys; c < all.size(); ++c) {
    std::vector<size_t> wider = block;
    wider.push_back(c);
    if (block.size() > keys && Total(wider, narrowest) > max_width) {
      flush();
      wider = key_set;
      wider.push_back(c);
    }
    block = std::move(wider);
  }
  flush();
  return out;
}

}  // namespace nictune::cli
