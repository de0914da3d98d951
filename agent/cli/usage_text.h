// SPDX-License-Identifier: Apache-2.0
// The CLI's usage: the whole text (`nictune help`), one command's part of it (`nictune help
// COMMAND`, `nictune COMMAND --help`), and the command names, all from one table.
#pragma once

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace nictune::cli {

std::string UsageText();

// The usage line and the command's own lines; none when no command has that name.
std::optional<std::string> CommandUsageText(absl::string_view command);

// "status, top, ..., help": for an error that names the commands there are.
std::string CommandNames();

}  // namespace nictune::cli
