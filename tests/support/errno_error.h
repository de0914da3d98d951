// SPDX-License-Identifier: Apache-2.0
// The status of a failed system call in test helpers: what was attempted, the errno's text and
// number ("open /proc/sys/net/core/rmem_default: Permission denied (errno 13)").
#pragma once

#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace nictune::testing_support {

inline absl::Status ErrnoError(const std::string& what, int error_number) {
  return absl::InternalError(
      absl::StrCat(what, ": ", std::strerror(error_number), " (errno ", error_number, ")"));
}

}  // namespace nictune::testing_support
