#include "tuner/interval_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tuner/limits.h"
#include "tuner/rates.h"

namespace nictune::tuner {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double Us(double seconds) { return seconds * 1e6; }

// Largest multiple of step not above limit_us, within [0, cap_us]; -1 when limit_us < 0.
int64_t FloorToStep(double limit_us, int64_t step, int64_t cap_us) {
  if (!(limit_us >= 0)) return -1;
  const double bounded = std::min(limit_us, static_cast<double>(cap_us));
  return static_cast<int64_t>(std::floor(bounded / static_cast<double>(step))) * step;
}

// Smallest multiple of step not below limit_us, at most cap_us.
int64_t CeilToStep(double limit_us, int64_t step, int64_t cap_us) {
  const double bounded = std::clamp(limit_us, 0.0, static_cast<double>(cap_us));
  const int64_t up = static_cast<int64_t>(std::ceil(bounded / static_cast<double>(step))) * step;
  return std::min(up, cap_us);
}

}  // namespace

absl::StatusOr<IntervalPlan> PlanInterval(const QueueObservation& queue, absl::Duration window,
                                          const PolicyConfig& config, uint32_t granularity_us,
                                          int64_t max_us) {
  IntervalPlan plan;
  plan.granularity_us = std::max<int64_t>(1, granularity_us);
  plan.cap_us = std::max<int64_t>(0, max_us) / plan.granularity_us * plan.granularity_us;
  plan.rx_rate_pps = PerSecond(queue.rx_packets, window);

  // Worst socket: the one whose drop-free interval is shortest.
  double socket_limit_s = kInf;
  for (const SocketObservation& s : queue.sockets) {
    const double truesize =
        s.truesize_mean_bytes > 0 ? s.truesize_mean_bytes : s.truesize_p99_bytes;
    if (s.packets == 0 || truesize <= 0) continue;
    FillInputs in;
    in.rate_pps = PerSecond(s.packets, window);
    in.truesize_bytes = truesize;
    in.rcvbuf_bytes = static_cast<double>(s.rcvbuf_bytes);
    in.drain_gap_s = s.drain_gap_s;
    in.margin = config.margin;
    absl::StatusOr<FillResult> fill = ComputeFill(in);
    if (!fill.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("socket ", s.name, " on ", queue.device, ": ", fill.status().message()));
    }
    // A reader on the softirq's CPU waits for the whole NAPI cycle, which at softirq load rho
    // lasts rate * u * p / (1 - rho); the burst is rate * u / (1 - rho), so u shrinks by (1 - rho).
    const double rho = s.reader_shares_softirq_cpu ? std::min(queue.cpu.softirq, 0.95) : 0.0;
    const double limit_s = fill->max_interval_s * (fill->max_interval_s > 0 ? 1 - rho : 1);
    if (plan.worst_socket.empty() || limit_s < socket_limit_s) {
      socket_limit_s = limit_s;
      plan.reader_softirq_load = rho;
      plan.worst_socket = s.name;
      plan.worst_socket_rcvbuf_locked = s.rcvbuf_locked;
      plan.worst_inputs = in;
      plan.worst_fill = *fill;
    }
  }

  // The ring holds rx_ring_size descriptors between polls whatever the sockets do.
  plan.ring_limit_s = kInf;
  if (queue.coalesce.rx_ring_size > 0 && plan.rx_rate_pps > 0) {
    plan.ring_limit_s = (1 - config.margin) * queue.coalesce.rx_ring_size / plan.rx_rate_pps;
  }
  plan.max_interval_s = std::min(socket_limit_s, plan.ring_limit_s);
  plan.constrained = !plan.worst_socket.empty() || plan.ring_limit_s < kInf;

  // The interrupt-rate ceiling from what an interrupt costs.
  const double interrupt_rate = PerSecond(queue.interrupts, window);
  const char* cost_source = "measured";
  if (queue.interrupt_cost_s > 0) {
    plan.interrupt_cost_s = queue.interrupt_cost_s;
    plan.interrupt_cost_measured = true;
  } else if (interrupt_rate > 0 && queue.cpu.hardirq > 0) {
    plan.interrupt_cost_s = queue.cpu.hardirq / interrupt_rate;
    plan.interrupt_cost_measured = true;
    cost_source = "hardirq share / interrupt rate";
  } else {
    plan.interrupt_cost_s = kDefaultInterruptCostSeconds;
    cost_source = "assumed, not measured";
  }
  absl::StatusOr<InterruptCeiling> ceiling =
      ComputeInterruptCeiling(plan.interrupt_cost_s, config.interrupt_cpu_share);
  if (!ceiling.ok()) return ceiling.status();
  plan.ceiling = *ceiling;
  const double floor_us = Us(plan.ceiling.min_interval_s);

  // The choice: the longest interval in granularity not above u_max and not below the cost floor;
  // when none exists, the cost floor itself (drops then need a bigger buffer).
  const int64_t longest = FloorToStep(Us(plan.max_interval_s), plan.granularity_us, plan.cap_us);
  if (longest >= 0 && static_cast<double>(longest) >= floor_us) {
    plan.interval_us = longest;
    plan.drop_free = true;
  } else {
    plan.interval_us = CeilToStep(floor_us, plan.granularity_us, plan.cap_us);
    plan.drop_free = static_cast<double>(plan.interval_us) <= Us(plan.max_interval_s);
  }
  plan.predicted_interrupt_rate =
      plan.interval_us > 0 ? std::min(1e6 / static_cast<double>(plan.interval_us), plan.rx_rate_pps)
                           : plan.rx_rate_pps;

  // The arithmetic, in the order a person would redo it.
  std::string& f = plan.formula;
  if (!plan.worst_socket.empty()) {
    const FillInputs& in = plan.worst_inputs;
    const FillResult& r = plan.worst_fill;
    absl::StrAppend(
        &f, absl::StrFormat("C = %.0f B / %.0f B = %.2f packets; T_fill = %.2f / %.0f pps = "
                            "%.2f us; u_max = (1 - %.2f) * %.2f us - %.2f us = %.2f us",
                            in.rcvbuf_bytes, in.truesize_bytes, r.capacity_packets,
                            r.capacity_packets, in.rate_pps, Us(r.fill_time_s), in.margin,
                            Us(r.fill_time_s), Us(in.drain_gap_s), Us(r.max_interval_s)));
    if (plan.reader_softirq_load > 0) {
      absl::StrAppend(&f, absl::StrFormat("; the reader shares the softirq CPU: u_max * (1 - "
                                          "softirq %.2f) = %.2f us",
                                          plan.reader_softirq_load, Us(socket_limit_s)));
      plan.inputs.push_back({"reader_softirq_load", plan.reader_softirq_load, "fraction"});
    }
    plan.inputs.push_back({"socket_rate", in.rate_pps, "pps"});
    plan.inputs.push_back({"truesize", in.truesize_bytes, "B"});
    plan.inputs.push_back({"rcvbuf", in.rcvbuf_bytes, "B"});
    plan.inputs.push_back({"drain_gap", Us(in.drain_gap_s), "us"});
    plan.inputs.push_back({"margin", in.margin, "fraction"});
  }
  if (plan.ring_limit_s < kInf) {
    absl::StrAppend(
        &f, f.empty() ? "" : "; ",
        absl::StrFormat("ring limit = (1 - %.2f) * %u / %.0f pps = %.2f us", config.margin,
                        queue.coalesce.rx_ring_size, plan.rx_rate_pps, Us(plan.ring_limit_s)));
    plan.inputs.push_back(
        {"rx_ring_size", static_cast<double>(queue.coalesce.rx_ring_size), "descriptors"});
  }
  plan.inputs.push_back({"rx_rate", plan.rx_rate_pps, "pps"});
  plan.inputs.push_back({"interrupt_cost", Us(plan.interrupt_cost_s), "us"});
  absl::StrAppend(&f, f.empty() ? "" : "; ",
                  absl::StrFormat("cost floor = %.2f us / %.2f = %.2f us (ceiling %.0f ints/s, "
                                  "cost %s)",
                                  Us(plan.interrupt_cost_s), config.interrupt_cpu_share, floor_us,
                                  plan.ceiling.max_rate, cost_source));
  if (plan.constrained && !plan.drop_free) {
    absl::StrAppend(&f, absl::StrFormat("; u_max %.2f us is below the cost floor: no interval is "
                                        "drop-free, the buffer must grow",
                                        Us(plan.max_interval_s)));
  }
  return plan;
}

}  // namespace nictune::tuner
