// SPDX-License-Identifier: Apache-2.0
#include "driver/bpf/probe_spend_account.h"

#include <algorithm>

namespace nictune::driver::bpf {

ProbeSpendAccount::ProbeSpendAccount(double cpu_share, absl::Duration period)
    : cpu_share_(cpu_share), period_s_(absl::ToDoubleSeconds(period)) {}

void ProbeSpendAccount::Record(double spent_ns, absl::Duration elapsed) {
  const double allowed_ns = cpu_share_ * 1e9 * absl::ToDoubleSeconds(elapsed);
  const double most_credit_ns = cpu_share_ * 1e9 * period_s_;
  const double most_debt_ns =
      cpu_share_ * 1e9 * (1 - kLeastShareOfBudget) * kRepayPeriods * period_s_;
  balance_ns_ = std::clamp(balance_ns_ + allowed_ns - spent_ns, -most_debt_ns, most_credit_ns);
}

double ProbeSpendAccount::PlanningShare(int plan_periods) const {
  const int repay_periods = std::max(kRepayPeriods, plan_periods);
  const double repay_share = debt_ns() / 1e9 / (repay_periods * period_s_);
  return std::max(cpu_share_ - repay_share, kLeastShareOfBudget * cpu_share_);
}

}  // namespace nictune::driver::bpf
