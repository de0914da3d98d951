// SPDX-License-Identifier: Apache-2.0
// The host's load averages, printed beside measured figures: pps and timing move with the load
// of this shared machine, so every figure is read with the load it was taken at.
#pragma once

#include <string>

namespace nictune::testing_support {

// "1-minute 5-minute 15-minute", e.g. "0.52 0.61 0.70"; "unknown" when the kernel will not say.
std::string LoadAverage();

}  // namespace nictune::testing_support
