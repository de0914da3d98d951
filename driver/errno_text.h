// SPDX-License-Identifier: Apache-2.0
// "strerror (errno N)": how every error message names an errno.
#pragma once

#include <string>

namespace nictune::driver {

std::string ErrnoText(int error_number);

}  // namespace nictune::driver
