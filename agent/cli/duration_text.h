// SPDX-License-Identifier: Apache-2.0
// How the CLI shows a length of time: in the two largest units that matter to a person reading it
// ("12 ms", "2.5 s", "4 min 5 s", "3 h 12 min", "11 d 4 h"), not "264h4m33.123s".
#pragma once

#include <string>

namespace nictune::cli {

// "-" for a negative or non-finite number.
std::string DurationText(double seconds);

}  // namespace nictune::cli
