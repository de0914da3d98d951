// SPDX-License-Identifier: Apache-2.0
// A plain text table: a header row, left-aligned text columns and right-aligned number columns,
// two spaces between columns, no ANSI escapes (it goes to pipes and logs as well as terminals).
// Rendered for a width, a table that is wider wraps its widest text onto more lines, headers
// included, and then splits its columns into blocks that each repeat the key columns (a queue's
// device, a row's time), so that nothing is cut off and nothing wraps in the terminal.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace nictune::cli {

enum class Align { kLeft, kRight };

struct Column {
  std::string header;
  Align align = Align::kLeft;
};

// Spaces between two columns.
inline constexpr size_t kColumnGap = 2;

// A width no table reaches: render as wide as the cells are.
inline constexpr size_t kNoWidthLimit = std::numeric_limits<size_t>::max();

class TextTable {
 public:
  // The first `key_columns` columns name a row: a table split into blocks repeats them in each.
  explicit TextTable(std::vector<Column> columns, size_t key_columns = 1)
      : columns_(std::move(columns)), key_columns_(key_columns) {}

  // Cells beyond the columns are dropped, missing ones are empty.
  void AddRow(std::vector<std::string> cells);
  size_t rows() const { return rows_.size(); }

  // Every line ends in '\n'; trailing spaces are trimmed. Widths count UTF-8 code points. Lines
  // are at most `max_width` wide, unless the key columns and one other column at their narrowest
  // are wider.
  std::string Render(size_t max_width) const;

  // What a line of `max_width` leaves for column `which` beside the others at their natural
  // widths, 0 when they fill it: a cell drawn to fit (a sparkline) is made that wide.
  size_t WidthLeftFor(size_t which, size_t max_width) const;

 private:
  std::vector<size_t> NaturalWidths() const;
  std::vector<size_t> CellWidths() const;
  std::vector<size_t> NarrowestWidths() const;
  std::vector<size_t> Fitted(const std::vector<size_t>& which, std::vector<size_t> widths,
                             size_t max_width) const;
  std::string RenderColumns(const std::vector<size_t>& which, std::vector<size_t> widths,
                            size_t max_width) const;

  std::vector<Column> columns_;
  size_t key_columns_ = 1;
  std::vector<std::vector<std::string>> rows_;
};

// Display width of UTF-8 text in code points (every character this CLI prints is one column).
size_t DisplayWidth(const std::string& text);

// `text` as lines of at most `width` code points: broken at a space where one fits, else after
// one of "/_-.,{" (a path, a metric name), else within a word.
std::vector<std::string> WrapToWidth(const std::string& text, size_t width);

// Every line of `text` longer than `width` wrapped; its continuation lines indented two spaces
// past the line's own indentation. Lines end in '\n' as they did.
std::string WrapLines(const std::string& text, size_t width);

}  // namespace nictune::cli
