// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/duration_text.h"

#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace nictune::cli {
namespace {

// "N BIG" or "N BIG M SMALL", the smaller unit left out when it is 0.
std::string TwoUnits(int64_t whole_small, int64_t per_big, const char* big, const char* small) {
  const int64_t bigs = whole_small / per_big;
  const int64_t rest = whole_small % per_big;
  if (rest == 0) return absl::StrCat(bigs, " ", big);
  return absl::StrCat(bigs, " ", big, " ", rest, " ", small);
}

}  // namespace

std::string DurationText(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "-";
  if (seconds < 1e-3) return absl::StrFormat("%.0f us", seconds * 1e6);
  if (seconds < 1) return absl::StrFormat("%.0f ms", seconds * 1e3);
  if (seconds < 10) {
    std::string text = absl::StrFormat("%.1f", seconds);
    if (text.ends_with(".0")) text.resize(text.size() - 2);
    return text + " s";
  }
  const auto whole = static_cast<int64_t>(std::llround(seconds));
  if (whole < 60) return absl::StrCat(whole, " s");
  if (whole < 3600) return TwoUnits(whole, 60, "min", "s");
  if (whole < 86400) return TwoUnits(whole / 60, 60, "h", "min");
  return TwoUnits(whole / 3600, 24, "d", "h");
}

}  // namespace nictune::cli
