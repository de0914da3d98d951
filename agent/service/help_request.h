// SPDX-License-Identifier: Apache-2.0
// `nictuned --help`: the usage message and the agent's own flags on standard output, then exit 0,
// as a request for help does by convention (help2man, packaging checks). abseil's own --help, in
// Debian 12's release, exits 1. The text keeps abseil's layout, which deploy/man/help_to_man.py
// and the bash completion read: "    --name (help); default: value;" wrapped at 80 columns, its
// continuation lines indented six spaces.
#pragma once

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace nictune::service {

// What the command line asks help for: "" for --help, -help or -h, SUBSTRING for --help=SUBSTRING
// (the flags whose name or help holds it); nullopt when it asks for none. Arguments after "--"
// are not flags.
std::optional<std::string> HelpRequest(int argc, char** argv);

// "PROGRAM: USAGE", then the flags defined in the file whose path ends with `main_file`, sorted
// by name, each with its help and default.
std::string HelpText(absl::string_view program, absl::string_view usage,
                     absl::string_view main_file, absl::string_view filter);

}  // namespace nictune::service
