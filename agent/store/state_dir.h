// SPDX-License-Identifier: Apache-2.0
// The state directory's own file-system steps: creating it and making its entries durable.
#pragma once

#include <string>

#include "absl/status/status.h"

namespace nictune::store {

// An errno of a step on the state directory or a file in it, naming the step and the path: full
// (ENOSPC, EDQUOT) is ResourceExhausted, not allowed (EACCES, EPERM, EROFS) PermissionDenied,
// ENOENT NotFound, the rest Internal.
absl::Status StateFileError(const char* operation, const std::string& path, int error);

// Creates `dir` (one level, mode 0700) unless it exists. Errors name the directory and the errno
// (EROFS for a read-only file system, EACCES, ...).
absl::Status EnsureStateDirectory(const std::string& dir);

// fsync of the directory itself, so that a file created in it keeps its name after a crash.
absl::Status SyncDirectory(const std::string& dir);

}  // namespace nictune::store
