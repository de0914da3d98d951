// SPDX-License-Identifier: Apache-2.0
// A plain text table: a header row, left-aligned text columns and right-aligned number columns,
// two spaces between columns, no ANSI escapes (it goes to pipes and logs as well as terminals).
#pragma once

#include <string>
#include <vector>

namespace nictune::cli {

enum class Align { kLeft, kRight };

struct Column {
  std::string header;
  Align align = Align::kLeft;
};

class TextTable {
 public:
  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

  // Cells beyond the columns are dropped, missing ones are empty.
  void AddRow(std::vector<std::string> cells);
  size_t rows() const { return rows_.size(); }

  // Every line ends in '\n'; trailing spaces are trimmed. Widths count UTF-8 code points.
  std::string Render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Display width of UTF-8 text in code points (every character this CLI prints is one column).
size_t DisplayWidth(const std::string& text);

}  // namespace nictune::cli
