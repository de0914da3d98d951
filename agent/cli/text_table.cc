// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/text_table.h"

#include <algorithm>

namespace nictune::cli {

size_t DisplayWidth(const std::string& text) {
  // Continuation bytes (10xxxxxx) do not start a code point.
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::Render() const {
  std::vector<size_t> widths;
  for (const Column& c : columns_) widths.push_back(DisplayWidth(c.header));
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], DisplayWidth(row[i]));
  }
  std::string out;
  auto append_line = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) line += "  ";
      const std::string padding(widths[i] - DisplayWidth(cells[i]), ' ');
      line += columns_[i].align == Align::kRight ? padding + cells[i] : cells[i] + padding;
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line;
    out += '\n';
  };
  std::vector<std::string> headers;
  for (const Column& c : columns_) headers.push_back(c.header);
  append_line(headers);
  for (const auto& row : rows_) append_line(row);
  return out;
}

}  // namespace nictune::cli
