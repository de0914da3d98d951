// SPDX-License-Identifier: Apache-2.0
// A mean over stored samples, each a value that stands for `count` raw samples: what downsampling
// writes and what a history read averages into its steps.
#pragma once

#include <cstdint>

namespace nictune::store {

struct WeightedMean {
  double weighted_sum = 0;  // sum of value * count
  int64_t count = 0;        // raw samples behind it
};

}  // namespace nictune::store
