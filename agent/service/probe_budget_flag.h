// SPDX-License-Identifier: Apache-2.0
// --probe_budget: the share of one CPU that every BPF program together may use.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace nictune::service {

// "0.5%" or "0.005" (a share of one CPU, above 0 and at most 1), or "unlimited" (nullopt: every
// hook attached whole, the behaviour before the budget). InvalidArgument naming the flag
// otherwise.
absl::StatusOr<std::optional<double>> ParseProbeBudget(absl::string_view text);

// The flag's text for a share: 0.004 -> "0.4%" (the flag's default is written from the driver's).
std::string ProbeBudgetFlagText(double share);

// How the budget reads back: "0.5% of one CPU", "unlimited".
std::string DescribeProbeBudget(std::optional<double> budget);

}  // namespace nictune::service
