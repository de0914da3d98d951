// SPDX-License-Identifier: Apache-2.0
// A count with its noun in the right number: "1 packet", "0.50 packets", "71 packets".
#pragma once

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace nictune::tuner {

// count printed with `decimals` decimals; the singular only for a whole 1 ("1.00 packets" is
// plural, as written English has it).
inline std::string CountText(double count, int decimals, const char* singular,
                             const char* plural) {
  const std::string number = absl::StrFormat("%.*f", decimals, count);
  return absl::StrCat(number, " ", decimals == 0 && number == "1" ? singular : plural);
}

inline std::string PacketsText(double count, int decimals) {
  return CountText(count, decimals, "packet", "packets");
}

}  // namespace nictune::tuner
