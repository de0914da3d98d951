// SPDX-License-Identifier: Apache-2.0
#include "tests/support/load_average.h"

#include <cstdlib>

#include "absl/strings/str_format.h"

namespace nictune::testing_support {

std::string LoadAverage() {
  double load[3] = {};
  if (getloadavg(load, 3) != 3) return "unknown";
  return absl::StrFormat("%.2f %.2f %.2f", load[0], load[1], load[2]);
}

}  // namespace nictune::testing_support
