// SPDX-License-Identifier: Apache-2.0
// The exit codes of `nictune`, documented in docs/cli.md: scripts branch on them.
#pragma once

namespace nictune::cli {

enum class ExitCode : int {
  kOk = 0,
  kServerError = 1,  // the agent answered with an HTTP error (its error and detail are printed)
  kUsage = 2,        // bad command line: nothing was sent
  kUnreachable = 3,  // no answer: socket missing, connection refused, permission denied, timeout
};

inline int ToInt(ExitCode code) { return static_cast<int>(code); }

}  // namespace nictune::cli
