// SPDX-License-Identifier: Apache-2.0
#include "tuner/sim_scenario.h"

#include <cmath>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace nictune::tuner {
namespace {

constexpr int64_t kMaxNs = 100'000'000'000;  // 100 s: the longest run or period we accept

absl::Status CheckRange(const char* field, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi) {
    return absl::InvalidArgumentError(
        absl::StrCat("sim scenario: ", field, " = ", value, " outside [", lo, ", ", hi, "]"));
  }
  return absl::OkStatus();
}

}  // namespace

int64_t TruesizeBytes(const FrameConfig& frame) {
  if (frame.truesize_bytes.has_value()) return *frame.truesize_bytes;
  const int64_t buffers =
      (frame.frame_bytes + frame.rx_buffer_usable_bytes - 1) / frame.rx_buffer_usable_bytes;
  return buffers * frame.rx_buffer_bytes + frame.skb_overhead_bytes;
}

absl::Status ValidateScenario(const SimScenario& s) {
  const ArrivalConfig& a = s.arrivals;
  if (!std::isfinite(a.rate_pps) || a.rate_pps <= 0 || a.rate_pps > 1e8) {
    return absl::InvalidArgumentError(
        absl::StrCat("sim scenario: arrivals.rate_pps = ", a.rate_pps, " outside (0, 1e8]"));
  }
  if (a.pattern == ArrivalPattern::kOnOff) {
    if (absl::Status st = CheckRange("arrivals.on_ns", a.on_ns, 1, kMaxNs); !st.ok()) return st;
    if (absl::Status st = CheckRange("arrivals.off_ns", a.off_ns, 0, kMaxNs); !st.ok()) return st;
  }
  const struct {
    const char* field;
    int64_t value;
    int64_t lo;
    int64_t hi;
  } ranges[] = {
      {"frame.frame_bytes", s.frame.frame_bytes, 1, 65536 + 18},
      {"frame.rx_buffer_bytes", s.frame.rx_buffer_bytes, 1, 1 << 20},
      {"frame.rx_buffer_usable_bytes", s.frame.rx_buffer_usable_bytes, 1, s.frame.rx_buffer_bytes},
      {"frame.skb_overhead_bytes", s.frame.skb_overhead_bytes, 0, 1 << 20},
      {"frame.truesize_bytes", s.frame.truesize_bytes.value_or(1), 1, 1 << 30},
      {"ring_size", s.ring_size, 1, kMaxSimRingSize},
      {"moderation.fixed.rx_usecs", s.moderation.fixed.rx_usecs, 0, 1'000'000},
      {"moderation.fixed.rx_frames", s.moderation.fixed.rx_frames, 0, 1 << 16},
      {"moderation.ixgbe.lowest_latency_usecs", s.moderation.ixgbe.lowest_latency_usecs, 1,
       1'000'000},
      {"moderation.ixgbe.low_latency_usecs", s.moderation.ixgbe.low_latency_usecs, 1, 1'000'000},
      {"moderation.ixgbe.bulk_latency_usecs", s.moderation.ixgbe.bulk_latency_usecs, 1, 1'000'000},
      {"moderation.ixgbe.low_bytes_per_usec", s.moderation.ixgbe.low_bytes_per_usec, 0,
       kKernelIntMax},
      {"moderation.ixgbe.high_bytes_per_usec", s.moderation.ixgbe.high_bytes_per_usec, 0,
       kKernelIntMax},
      {"moderation.dim.start_profile", s.moderation.dim.start_profile, 0, 4},
      {"napi.weight", s.napi.weight, 1, 1 << 16},
      {"napi.netdev_budget", s.napi.netdev_budget, 1, kKernelIntMax},
      {"napi.budget_usecs", s.napi.budget_usecs, 1, kKernelIntMax},
      {"napi.squeeze_yield_ns", s.napi.squeeze_yield_ns, 0, kMaxNs},
      {"cost.hardirq_ns", s.cost.hardirq_ns, 0, 1'000'000'000},
      {"cost.poll_ns", s.cost.poll_ns, 0, 1'000'000'000},
      {"cost.packet_ns", s.cost.packet_ns, 0, 1'000'000'000},
      {"rcvbuf_bytes", s.rcvbuf_bytes, 0, kKernelIntMax},
      {"app.read_ns", s.app.read_ns, 0, 1'000'000'000},
      {"app.read_batch", s.app.read_batch, 1, 1 << 20},
      {"app.batch_overhead_ns", s.app.batch_overhead_ns, 0, 1'000'000'000},
      {"app.gap_period_ns", s.app.gap_period_ns, 0, kMaxNs},
      {"app.gap_ns", s.app.gap_ns, 0, s.app.gap_period_ns},
      {"duration_ns", s.duration_ns, 1, kMaxNs},
  };
  for (const auto& r : ranges) {
    if (absl::Status st = CheckRange(r.field, r.value, r.lo, r.hi); !st.ok()) return st;
  }
  // Bounded work: a run simulates at most 2^31 packets.
  const double packets = a.rate_pps * static_cast<double>(s.duration_ns) / 1e9;
  if (packets > 2147483648.0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "sim scenario: arrivals.rate_pps * duration_ns = ", packets, " packets exceeds 2^31"));
  }
  if (TruesizeBytes(s.frame) > (int64_t{1} << 30)) {
    return absl::InvalidArgumentError(
        absl::StrCat("sim scenario: truesize of a ", s.frame.frame_bytes,
                     "-byte frame = ", TruesizeBytes(s.frame), " exceeds 2^30"));
  }
  return absl::OkStatus();
}

}  // namespace nictune::tuner
