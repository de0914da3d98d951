// SPDX-License-Identifier: Apache-2.0
#include "tuner/fill_math.h"

#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace nictune::tuner {
namespace {

absl::Status CheckInputs(const FillInputs& in) {
  const struct {
    const char* name;
    double value;
    bool must_be_positive;
  } fields[] = {
      {"rate_pps", in.rate_pps, true},
      {"truesize_bytes", in.truesize_bytes, true},
      {"rcvbuf_bytes", in.rcvbuf_bytes, false},
      {"drain_gap_s", in.drain_gap_s, false},
      {"margin", in.margin, false},
  };
  for (const auto& f : fields) {
    if (!std::isfinite(f.value) || f.value < 0 || (f.must_be_positive && f.value == 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("fill math: ", f.name, " = ", f.value,
                       f.must_be_positive ? " must be > 0" : " must be >= 0"));
    }
  }
  if (in.margin >= 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("fill math: margin = ", in.margin, " must be < 1"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<FillResult> ComputeFill(const FillInputs& in) {
  if (absl::Status s = CheckInputs(in); !s.ok()) return s;
  FillResult r;
  r.capacity_packets = in.rcvbuf_bytes / in.truesize_bytes;
  r.fill_time_s = r.capacity_packets / in.rate_pps;
  r.max_interval_s = (1 - in.margin) * r.fill_time_s - in.drain_gap_s;
  r.min_interrupt_rate =
      r.max_interval_s > 0 ? 1 / r.max_interval_s : std::numeric_limits<double>::infinity();
  return r;
}

absl::StatusOr<double> RcvbufNeeded(const FillInputs& in, double interval_s) {
  if (absl::Status s = CheckInputs(in); !s.ok()) return s;
  if (!std::isfinite(interval_s) || interval_s < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("fill math: interval_s = ", interval_s, " must be >= 0"));
  }
  return in.rate_pps * (interval_s + in.drain_gap_s) * in.truesize_bytes / (1 - in.margin);
}

absl::StatusOr<InterruptCeiling> ComputeInterruptCeiling(double cost_s, double cpu_share) {
  if (!std::isfinite(cost_s) || cost_s <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("interrupt ceiling: cost_s = ", cost_s, " must be finite and > 0"));
  }
  if (!std::isfinite(cpu_share) || cpu_share <= 0 || cpu_share > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("interrupt ceiling: cpu_share = ", cpu_share, " must be in (0, 1]"));
  }
  InterruptCeiling c;
  c.max_rate = cpu_share / cost_s;
  c.min_interval_s = cost_s / cpu_share;
  return c;
}

}  // namespace nictune::tuner
