// SPDX-License-Identifier: Apache-2.0
#include "tuner/observation_check.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tuner/limits.h"
#include "tuner/rates.h"

namespace nictune::tuner {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

std::string QueueName(const QueueObservation& q) {
  return q.queue < 0 ? q.device : absl::StrCat(q.device, " rx ", q.queue);
}

absl::Status Bad(const std::string& where, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("observation ", where, ": ", what));
}

absl::Status CheckGauge(const std::string& where, const char* name, double value, double max) {
  if (!std::isfinite(value) || value < 0 || value > max) {
    return Bad(where, absl::StrFormat("%s = %g must be finite and in [0, %g]", name, value, max));
  }
  return absl::OkStatus();
}

// A limit that +inf lifts: not NaN, not negative.
absl::Status CheckLimit(const std::string& where, const char* name, double value) {
  if (std::isnan(value) || value < 0) {
    return Bad(where, absl::StrFormat("%s = %g must be +inf or in [0, inf)", name, value));
  }
  return absl::OkStatus();
}

absl::Status CheckCount(const std::string& where, const char* name, uint64_t count,
                        absl::Duration window) {
  const double rate = PerSecond(count, window);
  if (rate > kMaxPlausibleEventsPerSecond) {
    return Bad(where,
               absl::StrFormat("%s = %u over %s is %.3g/s, above the plausible %.3g/s (a wrapped "
                               "counter?)",
                               name, count, absl::FormatDuration(window), rate,
                               kMaxPlausibleEventsPerSecond));
  }
  return absl::OkStatus();
}

absl::Status CheckKnob(const std::string& where, Knob knob, int64_t value) {
  const KnobRange range = KernelRange(knob);
  if (!InRange(value, range)) {
    return Bad(where, absl::StrFormat("%s = %d is outside the kernel's range [%d, %d]",
                                      std::string(KnobName(knob)), value, range.min, range.max));
  }
  return absl::OkStatus();
}

absl::Status CheckSocket(const std::string& queue, const SocketObservation& s,
                         absl::Duration window) {
  const std::string where = absl::StrCat(queue, " socket ", s.name);
  for (absl::Status st : {
           CheckCount(where, "packets", s.packets, window),
           CheckCount(where, "drops", s.drops, window),
           CheckGauge(where, "truesize_mean_bytes", s.truesize_mean_bytes, kMaxTruesizeBytes),
           CheckGauge(where, "truesize_p99_bytes", s.truesize_p99_bytes, kMaxTruesizeBytes),
           CheckGauge(where, "peak_fill", s.peak_fill, 1.0),
           CheckGauge(where, "drain_gap_s", s.drain_gap_s, kMaxDrainGapSeconds),
           CheckLimit(where, "drain_gap_seen_below_s", s.drain_gap_seen_below_s),
           CheckGauge(where, "open_drain_wait_s", s.open_drain_wait_s, kMaxDrainGapSeconds),
           CheckGauge(where, "burst_s", s.burst_s, kMaxDrainGapSeconds),
           CheckGauge(where, "burst_pause_s", s.burst_pause_s, kMaxDrainGapSeconds),
           CheckGauge(where, "max_packets_per_gap", s.max_packets_per_gap,
                      kMaxPlausibleEventsPerSecond * kMaxDrainGapSeconds),
           CheckGauge(where, "peak_rate_pps", s.peak_rate_pps, kMaxPlausibleEventsPerSecond),
           CheckLimit(where, "seconds_unseen", s.seconds_unseen),
           CheckGauge(where, "arrivals_share", s.arrivals_share, 1.0),
           // sk_rcvbuf is an int in the kernel.
           CheckGauge(where, "rcvbuf_bytes", static_cast<double>(s.rcvbuf_bytes),
                      static_cast<double>(kInt32Max)),
       }) {
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status CheckQueue(const QueueObservation& q, absl::Duration window) {
  const std::string where = QueueName(q);
  for (absl::Status st : {
           CheckCount(where, "rx_packets", q.rx_packets, window),
           CheckCount(where, "interrupts", q.interrupts, window),
           CheckCount(where, "polls", q.polls, window),
           CheckCount(where, "polls_budget_exhausted", q.polls_budget_exhausted, window),
           CheckCount(where, "rx_work", q.rx_work, window),
           CheckCount(where, "tx_work", q.tx_work, window),
           CheckCount(where, "time_squeeze", q.time_squeeze, window),
           CheckCount(where, "drops.socket", q.drops.socket, window),
           CheckCount(where, "drops.ring", q.drops.ring, window),
           CheckCount(where, "drops.backlog", q.drops.backlog, window),
           CheckCount(where, "drops.proto_mem", q.drops.proto_mem, window),
           CheckGauge(where, "cpu.hardirq", q.cpu.hardirq, 1.0),
           CheckGauge(where, "cpu.softirq", q.cpu.softirq, 1.0),
           CheckGauge(where, "cpu.user", q.cpu.user, 1.0),
           CheckGauge(where, "cpu.idle", q.cpu.idle, 1.0),
           // One interrupt costing more than a millisecond is a measurement error, not a NIC.
           CheckGauge(where, "interrupt_cost_s", q.interrupt_cost_s, 1e-3),
           // Nor does one packet cost a millisecond of softirq.
           CheckGauge(where, "packet_cost_s", q.packet_cost_s, 1e-3),
           CheckGauge(where, "napi_poller_cpu", q.napi_poller_cpu, 1.0),
           CheckGauge(where, "rx_peak_rate_pps", q.rx_peak_rate_pps, kMaxPlausibleEventsPerSecond),
           CheckKnob(where, Knob::kNapiDeferHardIrqs, q.defer.napi_defer_hard_irqs),
           CheckKnob(where, Knob::kGroFlushTimeout,
                     q.defer.gro_flush_timeout_ns > static_cast<uint64_t>(kInt64Max)
                         ? -1
                         : static_cast<int64_t>(q.defer.gro_flush_timeout_ns)),
           q.napi_threaded < 0 ? absl::OkStatus()
                               : CheckKnob(where, Knob::kNapiThreaded, q.napi_threaded),
       }) {
    if (!st.ok()) return st;
  }
  const double cpu_sum = q.cpu.hardirq + q.cpu.softirq + q.cpu.user + q.cpu.idle;
  if (cpu_sum > 1.0 + 1e-6) {
    return Bad(where, absl::StrFormat("cpu shares sum to %g, more than 1", cpu_sum));
  }
  for (const SocketObservation& s : q.sockets) {
    if (absl::Status st = CheckSocket(where, s, window); !st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckObservation(const Observation& obs) {
  if (obs.window <= absl::ZeroDuration() || obs.window == absl::InfiniteDuration()) {
    return Bad("window", absl::StrCat("length ", absl::FormatDuration(obs.window),
                                      " must be finite and > 0"));
  }
  const HostKnobs& h = obs.host;
  for (absl::Status st : {
           CheckKnob("host", Knob::kNetdevBudget, h.netdev_budget),
           CheckKnob("host", Knob::kNetdevBudgetUsecs, h.netdev_budget_usecs),
           CheckKnob("host", Knob::kDevWeight, h.dev_weight),
           CheckKnob("host", Knob::kDevWeightRxBias, h.dev_weight_rx_bias),
           CheckKnob("host", Knob::kDevWeightTxBias, h.dev_weight_tx_bias),
           CheckKnob("host", Knob::kRmemDefault, h.rmem_default),
           CheckKnob("host", Knob::kRmemMax, h.rmem_max),
           CheckKnob("host", Knob::kUdpRmemMin, h.udp_rmem_min),
           CheckGauge("host", "idle_cpus", obs.idle_cpus, kMaxCpus),
       }) {
    if (!st.ok()) return st;
  }
  for (const QueueObservation& q : obs.queues) {
    if (absl::Status st = CheckQueue(q, obs.window); !st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace nictune::tuner
