// SPDX-License-Identifier: Apache-2.0
#include "agent/service/flagfile_reload.h"

#include <optional>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "agent/procfs/read_file.h"

namespace nictune::service {
namespace {

// A flagfile is a few dozen lines; anything this large is not one.
constexpr size_t kMaxFlagfileBytes = 1 << 20;

struct FlagLine {
  std::string name;
  std::string value;
};

// "--name=value", "-name=value", "--name" (a bool set true), "--noname" (false is left to
// abseil's parser by value "false").
std::optional<FlagLine> ParseFlagLine(absl::string_view line) {
  if (!absl::ConsumePrefix(&line, "--") && !absl::ConsumePrefix(&line, "-")) return std::nullopt;
  const size_t eq = line.find('=');
  if (eq == absl::string_view::npos) {
    if (absl::FindCommandLineFlag(line) == nullptr && absl::StartsWith(line, "no")) {
      return FlagLine{std::string(line.substr(2)), "false"};
    }
    return FlagLine{std::string(line), "true"};
  }
  return FlagLine{std::string(line.substr(0, eq)), std::string(line.substr(eq + 1))};
}

}  // namespace

std::vector<std::string> FlagfilesFromArgs(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (!absl::ConsumePrefix(&arg, "--") && !absl::ConsumePrefix(&arg, "-")) continue;
    if (!absl::ConsumePrefix(&arg, "flagfile")) continue;
    std::string value;
    if (absl::ConsumePrefix(&arg, "=")) {
      value = std::string(arg);
    } else if (arg.empty() && i + 1 < argc) {
      value = argv[++i];
    } else {
      continue;
    }
    for (absl::string_view file : absl::StrSplit(value, ',', absl::SkipEmpty())) {
      files.emplace_back(file);
    }
  }
  return files;
}

absl::StatusOr<FlagfileReload> ReloadFlagfiles(const std::vector<std::string>& files,
                                               const std::set<std::string>& reloadable) {
  FlagfileReload reload;
  absl::Status failure;
  for (const std::string& file : files) {
    // A directory, a FIFO or a file that cannot be read is an error, never an empty file.
    absl::StatusOr<std::string> text = procfs::ReadFile(file, kMaxFlagfileBytes);
    if (!text.ok()) {
      failure =
          absl::Status(text.status().code(), absl::StrCat("flagfile: ", text.status().message()));
      break;
    }
    const std::vector<absl::string_view> lines = absl::StrSplit(*text, '\n');
    for (size_t index = 0; failure.ok() && index < lines.size(); ++index) {
      const int line_number = static_cast<int>(index) + 1;
      const absl::string_view line = absl::StripAsciiWhitespace(lines[index]);
      if (line.empty() || line[0] == '#') continue;
      const std::optional<FlagLine> parsed = ParseFlagLine(line);
      const std::string where = absl::StrCat("flagfile ", file, " line ", line_number);
      if (!parsed) {
        failure = absl::InvalidArgumentError(absl::StrCat(where, ": expected --name=value"));
        break;
      }
      if (parsed->name == "flagfile") continue;  // nested flagfiles: read at start only
      absl::CommandLineFlag* flag = absl::FindCommandLineFlag(parsed->name);
      if (flag == nullptr) {
        failure =
            absl::InvalidArgumentError(absl::StrCat(where, ": unknown flag --", parsed->name));
        break;
      }
      const std::string old_value = flag->CurrentValue();
      if (!reloadable.contains(parsed->name)) {
        // Compare as the flag prints it, so "1s" and "1000ms" are the same value.
        std::string error;
        if (flag->ParseFrom(parsed->value, &error) && flag->CurrentValue() != old_value) {
          reload.needs_restart.push_back(parsed->name);
        }
        flag->ParseFrom(old_value, &error);
        continue;
      }
      std::string error;
      if (!flag->ParseFrom(parsed->value, &error)) {
        failure = absl::InvalidArgumentError(
            absl::StrCat(where, ": --", parsed->name, "=", parsed->value, ": ", error));
        break;
      }
      if (flag->CurrentValue() != old_value) {
        reload.applied.push_back(FlagChange{
            .name = parsed->name, .old_value = old_value, .new_value = flag->CurrentValue()});
      }
    }
    if (!failure.ok()) break;
  }
  if (!failure.ok()) {
    RevertFlagChanges(reload.applied);
    return failure;
  }
  return reload;
}

void RevertFlagChanges(const std::vector<FlagChange>& changes) {
  for (auto change = changes.rbegin(); change != changes.rend(); ++change) {
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(change->name);
    std::string error;
    if (flag != nullptr) flag->ParseFrom(change->old_value, &error);
  }
}

}  // namespace nictune::service
