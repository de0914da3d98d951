// SPDX-License-Identifier: Apache-2.0
// Allocation-free scanning of kernel text: lines with their 1-based numbers, whitespace tokens,
// and numbers. Every parser in this folder reads its file through these.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/strings/string_view.h"

namespace nictune::procfs {

// Yields the lines of a text one at a time without copying. A final line without '\n' counts;
// the empty remainder after a final '\n' does not.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : rest_(text) {}

  // Sets `line` to the next line (without '\n') and returns true, or returns false at the end.
  bool Next(std::string_view& line);

  // 1-based number of the line last returned by Next(); 0 before the first call.
  int line_number() const { return line_number_; }

 private:
  std::string_view rest_;
  int line_number_ = 0;
};

// Removes and returns the next run of non-blank characters of `rest` (blanks are ' ' and '\t');
// empty when only blanks remain.
std::string_view NextToken(std::string_view& rest);

std::string_view TrimBlanks(std::string_view text);

// Strict conversions: the whole token must be the number, without sign (except ParseInt64) and
// in range; anything else yields nullopt.
std::optional<uint64_t> ParseUint64(std::string_view token);
std::optional<int64_t> ParseInt64(std::string_view token);
std::optional<uint32_t> ParseUint32(std::string_view token);
std::optional<uint32_t> ParseHexUint32(std::string_view token);

// Debian's Abseil has its own string_view type; StrCat and friends need this conversion.
inline absl::string_view ToAbsl(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}

}  // namespace nictune::procfs
