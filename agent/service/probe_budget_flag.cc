// SPDX-License-Identifier: Apache-2.0
#include "agent/service/probe_budget_flag.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"

namespace nictune::service {

absl::StatusOr<std::optional<double>> ParseProbeBudget(absl::string_view text) {
  absl::string_view value = absl::StripAsciiWhitespace(text);
  if (value == "unlimited") return std::optional<double>();
  const bool percent = absl::ConsumeSuffix(&value, "%");
  double share = 0;
  if (!absl::SimpleAtod(value, &share) || !std::isfinite(share)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--probe_budget=\"", text,
                     "\": expected a share of one CPU (0.005 or 0.5%) or \"unlimited\""));
  }
  if (percent) share /= 100;
  if (!(share > 0) || share > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--probe_budget=\"", text, "\": must be above 0 and at most one CPU (100%)"));
  }
  return std::optional<double>(share);
}

std::string ProbeBudgetFlagText(double share) { return absl::StrFormat("%g%%", 100 * share); }

std::string DescribeProbeBudget(std::optional<double> budget) {
  if (!budget) return "unlimited";
  return absl::StrCat(ProbeBudgetFlagText(*budget), " of one CPU");
}

}  // namespace nictune::service
