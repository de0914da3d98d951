// SPDX-License-Identifier: Apache-2.0
// How many columns the CLI's views fit: what a person sees without lines wrapping.
#pragma once

#include <cstddef>

#include "agent/cli/text_table.h"

namespace nictune::cli {

// Stdout's columns when nothing says otherwise and it is not a terminal (a pipe, a file, a log,
// a mail): the width such text is read at. A script sets COLUMNS wider to keep each row on one
// line, or reads --json.
inline constexpr size_t kOffTerminalWidth = 80;

// $COLUMNS when it holds a width (20 to 1000, as shells export it), else the terminal's when
// `fd` is one, else kOffTerminalWidth.
size_t TerminalWidth(int fd, const char* columns_env);

}  // namespace nictune::cli
