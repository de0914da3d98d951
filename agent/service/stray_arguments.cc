// SPDX-License-Identifier: Apache-2.0
#include "agent/service/stray_arguments.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace nictune::service {
namespace {

constexpr char kHelp[] = "; see nictuned --help";

// What abseil takes as a switch's value (absl::SimpleAtob: true, yes, 1, ... in any case).
bool IsBooleanWord(const std::string& word) {
  bool unused = false;
  return absl::SimpleAtob(word, &unused);
}

}  // namespace

std::optional<std::string> StrayArgumentError(const std::vector<char*>& positional,
                                              const std::vector<std::string>& argv) {
  if (positional.size() <= 1) return std::nullopt;
  const std::string stray = positional[1];
  // The flag just before the stray word on the command line, when there is one.
  if (argv.empty()) return absl::StrCat("nictuned: unexpected argument \"", stray, "\"", kHelp);
  const auto at = std::find(argv.begin() + 1, argv.end(), stray);
  const bool after_flag = at != argv.end() && at != argv.begin() + 1 &&
                          absl::StartsWith(*(at - 1), "-") && !absl::StrContains(*(at - 1), "=");
  if (after_flag && IsBooleanWord(stray)) {
    return absl::StrCat("nictuned: unexpected argument \"", stray,
                        "\": a switch's value is joined, ", *(at - 1), "=", stray);
  }
  return absl::StrCat("nictuned: unexpected argument \"", stray, "\": flags only", kHelp);
}

}  // namespace nictune::service
