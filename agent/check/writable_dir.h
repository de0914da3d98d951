// SPDX-License-Identifier: Apache-2.0
// Whether nictuned could keep its state in a directory, without creating anything, for
// `nictuned --check`.
#pragma once

#include <string>

#include "absl/status/status.h"

namespace nictune::check {

// OK when `dir` is writable, or missing under a writable parent (a start creates it); otherwise
// an error naming the directory and the errno (EROFS, EACCES, ...).
absl::Status CheckDirectoryWritable(const std::string& dir);

}  // namespace nictune::check
