// SPDX-License-Identifier: Apache-2.0
#include "agent/service/help_request.h"

#include <algorithm>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace nictune::service {
namespace {

constexpr size_t kColumns = 80;
constexpr absl::string_view kFirstIndent = "    ";
constexpr absl::string_view kNextIndent = "      ";

// Words joined by spaces into lines of at most kColumns (a longer word keeps a line to itself).
std::string Wrapped(absl::string_view text) {
  std::string out(kFirstIndent);
  size_t line_length = out.size();
  bool line_empty = true;
  for (absl::string_view word : absl::StrSplit(text, absl::ByAnyChar(" \n\t"), absl::SkipEmpty())) {
    if (!line_empty && line_length + 1 + word.size() > kColumns) {
      absl::StrAppend(&out, "\n", kNextIndent);
      line_length = kNextIndent.size();
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++line_length;
    }
    absl::StrAppend(&out, word);
    line_length += word.size();
    line_empty = false;
  }
  return out + "\n";
}

std::string FlagEntry(const absl::CommandLineFlag& flag) {
  const std::string fallback = flag.DefaultValue();
  const std::string shown =
      flag.IsOfType<std::string>() ? absl::StrCat("\"", fallback, "\"") : fallback;
  return Wrapped(absl::StrCat("--", flag.Name(), " (", flag.Help(), "); default: ", shown, ";"));
}

}  // namespace

std::optional<std::string> HelpRequest(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg == "--help" || arg == "-help" || arg == "-h") return std::string();
    for (absl::string_view prefix : {"--help=", "-help="}) {
      if (absl::StartsWith(arg, prefix)) return std::string(arg.substr(prefix.size()));
    }
  }
  return std::nullopt;
}

std::string HelpText(absl::string_view program, absl::string_view usage,
                     absl::string_view main_file, absl::string_view filter) {
  std::vector<const absl::CommandLineFlag*> flags;
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (!absl::EndsWith(flag->Filename(), main_file)) continue;
    if (!filter.empty() && !absl::StrContains(flag->Name(), filter) &&
        !absl::StrContains(flag->Help(), filter)) {
      continue;
    }
    flags.push_back(flag);
  }
  std::sort(flags.begin(), flags.end(),
            [](const auto* a, const auto* b) { return a->Name() < b->Name(); });
  std::string out = absl::StrCat(program, ": ", usage, "\n\n");
  if (flags.empty()) {
    absl::StrAppend(&out, filter.empty()
                              ? absl::StrCat("  No flags in ", main_file, ".\n")
                              : absl::StrCat("  No flag's name or help holds \"", filter, "\".\n"));
  } else {
    absl::StrAppend(&out, "  Flags from ", main_file, ":\n");
    for (const absl::CommandLineFlag* flag : flags) absl::StrAppend(&out, FlagEntry(*flag), "\n");
  }
  absl::StrAppend(&out,
                  "Try --help=SUBSTRING for the flags whose name or help holds SUBSTRING, or\n"
                  "--helpfull for abseil's own flags too (--flagfile, --version, ...).\n");
  return out;
}

}  // namespace nictune::service
