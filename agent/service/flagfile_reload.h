// SPDX-License-Identifier: Apache-2.0
// SIGHUP: re-reads the --flagfile(s) the agent started with and applies the flags that may change
// while it runs. The rest (listen address, state directory, probes) need a restart and are only
// reported when the file asks for a different value.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace nictune::service {

// The --flagfile=PATH (or --flagfile PATH) arguments on the command line, comma lists split.
std::vector<std::string> FlagfilesFromArgs(int argc, char** argv);

struct FlagChange {
  std::string name;
  std::string old_value;
  std::string new_value;
};

struct FlagfileReload {
  std::vector<FlagChange> applied;         // reloadable flags whose value changed
  std::vector<std::string> needs_restart;  // other flags the file sets to a new value
};

// Reads the files (one --name=value a line; '#' comments and blank lines skipped, as abseil's
// --flagfile) and sets the flags named in `reloadable`. All or nothing: when any line fails to
// parse, no flag changes and the error names the file, line and flag.
absl::StatusOr<FlagfileReload> ReloadFlagfiles(const std::vector<std::string>& files,
                                               const std::set<std::string>& reloadable);

// Sets the flags back to their old values (when the new ones, valid one by one, do not work
// together).
void RevertFlagChanges(const std::vector<FlagChange>& changes);

}  // namespace nictune::service
