// SPDX-License-Identifier: Apache-2.0
// What the probes have spent against the probe budget, as measured: the link operations' CPU
// time (the thread that makes them reads its own clock) and the programs' events at their cost
// per event. A plan rests on estimates (a hook's average link operation, its rate when it was
// last measured, a period cut short by a flood and planned again), and on a busy host those run
// low: link operations that cost twice their average for a while spend twice what the plan said.
// The account carries the difference, and the next plans get the budget less the debt, repaid
// over a few periods, so that what the probes spend holds the budget over time and not only on
// paper. Pure: the caller measures and passes the time.
#pragma once

#include <cstdint>

#include "absl/time/time.h"

namespace nictune::driver::bpf {

class ProbeSpendAccount {
 public:
  // A budget of `cpu_share` of one CPU, planned every `period`.
  ProbeSpendAccount(double cpu_share, absl::Duration period);

  // `spent_ns` of CPU over the `elapsed` since the last call. Unspent budget is kept as credit
  // up to one period's worth, so that a quiet spell does not pay for a later burst; a debt is
  // kept up to what brings the planning share to its floor, so that spend the plans cannot cut
  // (a hook never slotted) is not owed long after it stops.
  void Record(double spent_ns, absl::Duration elapsed);

  // The share of one CPU the next plan may use: the budget less a kRepayPeriods-th of the debt a
  // period (or a plan_periods-th, for a plan that spans more periods than that, so that it does
  // not repay more than it owes), and never under kLeastShareOfBudget of the budget: with link
  // operations as dear as a busy VM's (a millisecond each), a plan given less has nothing left
  // after the links to sample with. Plans at the floor that still overspend keep the debt, and
  // the planning share the window reports stays at the floor: visible, not silent.
  double PlanningShare(int plan_periods = 1) const;

  double debt_ns() const { return balance_ns_ < 0 ? -balance_ns_ : 0; }

  // A quarter of the debt a period: repaid without the plans swinging from one period to the
  // next while they spend up to four times what they estimate; the floor holds the spend to the
  // budget while they spend up to twice that.
  static constexpr int kRepayPeriods = 4;
  static constexpr double kLeastShareOfBudget = 0.5;

 private:
  double cpu_share_;
  double period_s_;
  double balance_ns_ = 0;  // credit above 0, debt below
};

}  // namespace nictune::driver::bpf
