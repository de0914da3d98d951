// SPDX-License-Identifier: Apache-2.0
#include "driver/errno_text.h"

#include <cstring>

#include "absl/strings/str_format.h"

namespace nictune::driver {

std::string ErrnoText(int error_number) {
  return absl::StrFormat("%s (errno %d)", std::strerror(error_number), error_number);
}

}  // namespace nictune::driver
