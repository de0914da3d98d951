// SPDX-License-Identifier: Apache-2.0
// double -> integer conversions without undefined behaviour: a value outside the target's range
// (or NaN) is undefined to cast, so it is clamped first.
#pragma once

#include <cstdint>
#include <limits>

namespace nictune::tuner {

// The nearest int64_t toward zero; the type's bounds beyond them; 0 for NaN.
inline int64_t SaturatingInt64(double value) {
  // 2^63 is exact as a double; every double below it converts.
  constexpr double kTwo63 = 9223372036854775808.0;
  if (!(value == value)) return 0;
  if (value >= kTwo63) return std::numeric_limits<int64_t>::max();
  if (value <= -kTwo63) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(value);
}

// The same for uint64_t; 0 for negatives and NaN.
inline uint64_t SaturatingUint64(double value) {
  constexpr double kTwo64 = 18446744073709551616.0;
  if (!(value > 0)) return 0;
  if (value >= kTwo64) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(value);
}

}  // namespace nictune::tuner
