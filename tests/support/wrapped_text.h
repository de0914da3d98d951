// SPDX-License-Identifier: Apache-2.0
// Text the CLI and nictuned wrap for a terminal (agent/cli/text_table.h), read back in tests: its
// widest line, and its lines joined where a wrap broke them. Header-only: its users link the
// agent, which the support library does not.
#pragma once

#include <algorithm>
#include <cstddef>
#include <regex>
#include <string>

#include "absl/strings/str_split.h"
#include "agent/cli/text_table.h"

namespace nictune::testing_support {

// The widest line of `text`, in columns.
inline size_t WidestLine(const std::string& text) {
  size_t widest = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    widest = std::max(widest, cli::DisplayWidth(std::string(line)));
  }
  return widest;
}

// `text` with each continuation line (a wrap's, indented) joined to the line it continues: a wrap
// breaks at a space where one fits, so a message reads as it was written.
inline std::string JoinWrappedLines(const std::string& text) {
  return std::regex_replace(text, std::regex("\n +"), " ");
}

}  // namespace nictune::testing_support
