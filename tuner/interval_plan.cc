#include "tuner/interval_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

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

// One socket's inputs to the burst model.
struct SocketModel {
  const SocketObservation* socket = nullptr;
  FillInputs fill_inputs;  // the mean rate: the plain fill math a person redoes first
  FillResult fill;
  BurstInputs burst;
  double usable_packets = 0;
  // The longest interval whose single NAPI cycle fits (the gap not counted): an upper bound on
  // every drop-free interval, exact where the gap is shorter; < 0 when none.
  double one_cycle_limit_s = -1;
};

double OneCycleLimit(const SocketModel& m) {
  const BurstInputs& b = m.burst;
  if (m.usable_packets <= 0 || b.socket_rate_pps <= 0) return -1;
  if (!b.reader_waits_for_napi) return m.usable_packets / b.socket_rate_pps;
  const double load = b.queue_rate_pps * b.packet_cost_s;
  if (load >= kSaturatedSoftirqLoad) return -1;
  return m.usable_packets * (1 - load) / b.socket_rate_pps - b.interrupt_cost_s;
}

// Relative slack for comparing a hold against its limit computed from the same numbers.
constexpr double kRoundingSlack = 1 + 1e-9;

bool SocketFits(const SocketModel& m, double interval_s) {
  const Burst b = BurstAt(m.burst, interval_s);
  return !b.saturated && b.packets_held <= m.usable_packets * kRoundingSlack;
}

// The most a socket may hold at an interval at least twice the cost floor's when the buffer must
// grow anyway: the floor's hold plus PolicyConfig::grown_buffer_slack of it, or one packet when
// that is more (the floor's sparse deliveries and a longer interval's dense ones round to whole
// packets apart). Behind a drain gap the hold grows slowly with u, so this buys many times fewer
// interrupts; without one it grows in proportion to u and never qualifies, and the floor's
// smaller buffer stays.
double NearFloorHold(double held_at_floor, double slack) {
  return held_at_floor + std::max(1.0, slack * held_at_floor);
}

// When the buffer must grow anyway: the longest multiple of step in (floor_us, top_us] at which
// no socket holds more than at floor_us (the same buffer, fewer interrupts: with a drain gap the
// hold is not monotonic in u), or, from 2 * floor_us on, no more than NearFloorHold of it. 0 when
// none.
int64_t LongestIntervalNearFloorHold(const std::vector<SocketModel>& models, int64_t floor_us,
                                     int64_t top_us, int64_t step, double slack) {
  std::vector<double> held_at_floor;
  for (const SocketModel& m : models) {
    held_at_floor.push_back(BurstAt(m.burst, static_cast<double>(floor_us) * 1e-6).packets_held);
  }
  for (int64_t u = top_us; u > floor_us; u -= step) {
    const bool halves_interrupts = u >= 2 * floor_us;
    bool near = true;
    for (size_t i = 0; i < models.size() && near; ++i) {
      const Burst b = BurstAt(models[i].burst, static_cast<double>(u) * 1e-6);
      const double limit =
          halves_interrupts ? NearFloorHold(held_at_floor[i], slack) : held_at_floor[i];
      near = !b.saturated && b.packets_held <= limit * kRoundingSlack;
    }
    if (near) return u;
  }
  return 0;
}

// How packets_held came about (burst_model.h), numbers substituted.
std::string HeldFormula(const BurstInputs& in, const Burst& b) {
  if (b.packets_per_delivery <= 0 || (b.deliveries_per_gap <= 1 && !b.held_by_bursts)) {
    return absl::StrFormat("1 cycle of %.2f us (drain gap %.2f us) x %.0f pps = %.2f packets",
                           Us(b.cycle_s), Us(in.drain_gap_s), in.socket_rate_pps, b.packets_held);
  }
  std::string out = absl::StrFormat(
      "%.0f deliveries complete in the drain gap %.2f us + %.2f us of softirq (1 + floor(%.2f us "
      "/ %.2f us apart)), all but the last floor(%.2f) + 1 = %.0f packets, the last %.2f (cycle "
      "%.2f us)",
      b.deliveries_per_gap, Us(in.drain_gap_s), Us(b.processing_s),
      Us(in.drain_gap_s + b.processing_s), Us(b.delivery_s), b.packets_per_cycle,
      b.packets_per_delivery, b.packets_per_cycle, Us(b.cycle_s));
  if (b.held_by_bursts) {
    absl::StrAppend(
        &out, absl::StrFormat(", but bursts of at most %.2f us at least %.2f us apart bring no "
                              "more than floor(%.0f pps * %.2f us bursting) + 1 in the %.2f us "
                              "from a cycle before the gap to the last delivery's end",
                              Us(in.burst_s), Us(in.burst_pause_s), in.socket_rate_pps,
                              Us(b.bursting_s), Us(b.span_s)));
  }
  absl::StrAppend(&out, absl::StrFormat(" = %.2f packets", b.packets_held));
  return out;
}

}  // namespace

absl::StatusOr<IntervalPlan> PlanInterval(const QueueObservation& queue, absl::Duration window,
                                          const PolicyConfig& config, uint32_t granularity_us,
                                          int64_t max_us) {
  IntervalPlan plan;
  plan.granularity_us = std::max<int64_t>(1, granularity_us);
  plan.cap_us = std::max<int64_t>(0, max_us) / plan.granularity_us * plan.granularity_us;
  plan.rx_rate_pps = PerSecond(queue.rx_packets, window);
  plan.rx_peak_rate_pps = std::max(plan.rx_rate_pps, queue.rx_peak_rate_pps);

  // The interrupt-rate ceiling from what an interrupt costs; the cost also lengthens each cycle.
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

  // Softirq time per packet: measured, else the softirq share spread over the mean rate.
  const char* packet_cost_source = "measured";
  if (queue.packet_cost_s > 0) {
    plan.packet_cost_s = queue.packet_cost_s;
  } else if (queue.cpu.softirq > 0 && plan.rx_rate_pps > 0) {
    plan.packet_cost_s = queue.cpu.softirq / plan.rx_rate_pps;
    packet_cost_source = "softirq share / rx rate";
  } else {
    packet_cost_source = "unknown, taken as 0";
  }

  std::vector<SocketModel> models;
  for (const SocketObservation& s : queue.sockets) {
    const double truesize =
        s.truesize_mean_bytes > 0 ? s.truesize_mean_bytes : s.truesize_p99_bytes;
    if (s.packets == 0 || truesize <= 0) continue;
    SocketModel m;
    m.socket = &s;
    m.fill_inputs.rate_pps = PerSecond(s.packets, window);
    m.fill_inputs.truesize_bytes = truesize;
    m.fill_inputs.rcvbuf_bytes = static_cast<double>(s.rcvbuf_bytes);
    m.fill_inputs.drain_gap_s = s.drain_gap_s;
    m.fill_inputs.margin = config.margin;
    absl::StatusOr<FillResult> fill = ComputeFill(m.fill_inputs);
    if (!fill.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("socket ", s.name, " on ", queue.device, ": ", fill.status().message()));
    }
    m.fill = *fill;
    m.burst.socket_rate_pps = std::max(m.fill_inputs.rate_pps, s.peak_rate_pps);
    m.burst.queue_rate_pps = std::max(plan.rx_peak_rate_pps, m.burst.socket_rate_pps);
    m.burst.packet_cost_s = plan.packet_cost_s;
    m.burst.interrupt_cost_s = plan.interrupt_cost_s;
    m.burst.drain_gap_s = s.drain_gap_s;
    m.burst.burst_s = s.burst_s;
    m.burst.burst_pause_s = s.burst_pause_s;
    m.burst.reader_waits_for_napi = s.reader_shares_softirq_cpu;
    m.usable_packets = UsablePackets(m.fill.capacity_packets, config.margin);
    m.one_cycle_limit_s = OneCycleLimit(m);
    models.push_back(m);
  }
  const double queue_peak = std::accumulate(
      models.begin(), models.end(), plan.rx_peak_rate_pps,
      [](double acc, const SocketModel& m) { return std::max(acc, m.burst.queue_rate_pps); });
  plan.cpu_saturated = queue_peak * plan.packet_cost_s >= kSaturatedSoftirqLoad;

  // The ring holds rx_ring_size descriptors from the first packet of an interval until the poll
  // takes them, an interrupt's cost later; NAPI then drains faster than packets come (load < 1).
  plan.ring_limit_s = kInf;
  if (queue.coalesce.rx_ring_size > 0 && queue_peak > 0) {
    plan.ring_limit_s =
        (1 - config.margin) * queue.coalesce.rx_ring_size / queue_peak - plan.interrupt_cost_s;
  }
  plan.constrained = !models.empty() || plan.ring_limit_s < kInf;

  const auto all_fit = [&](double interval_s) {
    if (plan.cpu_saturated || interval_s > plan.ring_limit_s * kRoundingSlack) return false;
    return std::all_of(models.begin(), models.end(),
                       [&](const SocketModel& m) { return SocketFits(m, interval_s); });
  };

  // Every drop-free interval lies below each socket's one-cycle limit and the ring's. There the
  // model is monotonic unless a drain gap reaches the interval; then the longest drop-free
  // multiple of the granularity is searched downwards (at most cap / granularity steps).
  double upper_s = plan.ring_limit_s;
  for (const SocketModel& m : models) upper_s = std::min(upper_s, m.one_cycle_limit_s);
  // Drops seen at the current static interval outweigh the model (e.g. random arrivals, whose
  // count per interval the margin does not cover for a small socket): stay below it.
  const CoalesceState& c = queue.coalesce;
  const bool dropped_at_current =
      c.rx_usecs_supported && !c.adaptive_rx && c.rx_usecs > 0 &&
      std::any_of(models.begin(), models.end(),
                  [](const SocketModel& m) { return m.socket->drops > 0; });
  double observed_cap_s = kInf;
  if (dropped_at_current) {
    observed_cap_s = (1 - config.margin) * static_cast<double>(c.rx_usecs) * 1e-6;
    upper_s = std::min(upper_s, observed_cap_s);
  }
  int64_t longest_us = -1;
  for (int64_t u = FloorToStep(Us(upper_s), plan.granularity_us, plan.cap_us); u >= 0;
       u -= plan.granularity_us) {
    if (all_fit(static_cast<double>(u) * 1e-6)) {
      longest_us = u;
      break;
    }
  }
  if (!plan.constrained) {
    plan.max_interval_s = kInf;
  } else if (upper_s >= 0 && upper_s < observed_cap_s && all_fit(upper_s)) {
    plan.max_interval_s = upper_s;
  } else {
    plan.max_interval_s = longest_us >= 0 ? static_cast<double>(longest_us) * 1e-6 : 0;
  }

  // The choice: the longest drop-free interval not below the cost floor; when none exists, the
  // cost floor itself (drops then need a bigger buffer).
  if (longest_us >= 0 && static_cast<double>(longest_us) >= floor_us) {
    plan.interval_us = longest_us;
    plan.drop_free = true;
  } else {
    plan.interval_us = CeilToStep(floor_us, plan.granularity_us, plan.cap_us);
    plan.drop_free = all_fit(static_cast<double>(plan.interval_us) * 1e-6);
    if (!plan.drop_free && !plan.cpu_saturated) {
      plan.near_floor_buffer_interval_us =
          LongestIntervalNearFloorHold(models, plan.interval_us,
                                       FloorToStep(Us(std::min(plan.ring_limit_s, observed_cap_s)),
                                                   plan.granularity_us, plan.cap_us),
                                       plan.granularity_us, config.grown_buffer_slack);
      plan.interval_us = std::max(plan.interval_us, plan.near_floor_buffer_interval_us);
    }
  }
  const double interval_s = static_cast<double>(plan.interval_us) * 1e-6;
  plan.predicted_interrupt_rate =
      plan.interval_us > 0 ? std::min(1e6 / static_cast<double>(plan.interval_us), plan.rx_rate_pps)
                           : plan.rx_rate_pps;

  // Worst socket: the one that fills furthest at the chosen interval.
  const SocketModel* worst = nullptr;
  double worst_ratio = -1;
  for (const SocketModel& m : models) {
    const Burst b = BurstAt(m.burst, interval_s);
    const double ratio = m.usable_packets > 0 ? b.packets_held / m.usable_packets : kInf;
    if (worst == nullptr || ratio > worst_ratio) {
      worst = &m;
      worst_ratio = ratio;
    }
  }
  if (worst != nullptr) {
    plan.worst_socket = worst->socket->name;
    plan.worst_socket_rcvbuf_locked = worst->socket->rcvbuf_locked;
    plan.worst_inputs = worst->fill_inputs;
    plan.worst_fill = worst->fill;
    plan.worst_burst_inputs = worst->burst;
    plan.worst_burst = BurstAt(worst->burst, interval_s);
    plan.worst_usable_packets = worst->usable_packets;
    plan.reader_softirq_load =
        worst->burst.reader_waits_for_napi ? plan.worst_burst.softirq_load : 0;
    plan.rcvbuf_needed_bytes =
        plan.worst_burst.saturated
            ? kInf
            : RcvbufForPackets(plan.worst_burst.packets_held, worst->fill_inputs.truesize_bytes,
                               config.margin);
    plan.rcvbuf_formula = absl::StrFormat(
        "rcvbuf_needed = max(%.2f packets / (1 - %.2f), ceil(%.2f + %.2f)) * %.0f B = %.0f B "
        "(socket %s, now %.0f B)",
        plan.worst_burst.packets_held, config.margin, plan.worst_burst.packets_held, config.margin,
        worst->fill_inputs.truesize_bytes, plan.rcvbuf_needed_bytes, plan.worst_socket,
        worst->fill_inputs.rcvbuf_bytes);
  }

  const double peak_load = queue_peak * plan.packet_cost_s;
  if (plan.cpu_saturated) {
    plan.unresolved = absl::StrFormat(
        "CPU saturated: the softirq needs %.0f pps * %.3f us = %.2f of a CPU at the peak rate "
        "(>= %.2f); no interval or buffer keeps up: spread the queue over more CPUs (RSS) or lower "
        "the per-packet cost",
        queue_peak, Us(plan.packet_cost_s), peak_load, kSaturatedSoftirqLoad);
  } else if (Us(plan.ring_limit_s) < static_cast<double>(plan.interval_us)) {
    plan.unresolved = absl::StrFormat(
        "ring overrun: %u descriptors hold %.2f us at the peak rate, below the cost floor %.2f us; "
        "a bigger ring (ethtool -G) or a higher interrupt CPU share is needed",
        queue.coalesce.rx_ring_size, Us(plan.ring_limit_s), floor_us);
  }

  // The arithmetic, in the order a person would redo it.
  std::string& f = plan.formula;
  if (worst != nullptr) {
    const FillInputs& in = plan.worst_inputs;
    const FillResult& r = plan.worst_fill;
    const BurstInputs& bi = plan.worst_burst_inputs;
    const Burst& b = plan.worst_burst;
    absl::StrAppend(
        &f, absl::StrFormat("C = %.0f B / %.0f B = %.2f packets; T_fill = %.2f / %.0f pps = "
                            "%.2f us; u_max = (1 - %.2f) * %.2f us - %.2f us = %.2f us",
                            in.rcvbuf_bytes, in.truesize_bytes, r.capacity_packets,
                            r.capacity_packets, in.rate_pps, Us(r.fill_time_s), in.margin,
                            Us(r.fill_time_s), Us(in.drain_gap_s), Us(r.max_interval_s)));
    absl::StrAppend(&f, absl::StrFormat("; per interrupt: usable = min((1 - %.2f) * %.2f, "
                                        "floor(%.2f) - %.2f) = %.2f packets at the peak %.0f pps",
                                        in.margin, r.capacity_packets, r.capacity_packets,
                                        in.margin, plan.worst_usable_packets, bi.socket_rate_pps));
    if (bi.reader_waits_for_napi) {
      absl::StrAppend(
          &f, absl::StrFormat("; the reader waits for the NAPI cycle: load = %.0f pps * %.3f us "
                              "(%s) = %.3f, cycle = (u + %.2f us) / (1 - %.3f)",
                              bi.queue_rate_pps, Us(bi.packet_cost_s), packet_cost_source,
                              b.softirq_load, Us(bi.interrupt_cost_s), b.softirq_load));
      plan.inputs.push_back({"reader_softirq_load", b.softirq_load, "fraction"});
      plan.inputs.push_back({"packet_cost", Us(bi.packet_cost_s), "us"});
    }
    if (!b.saturated) {
      absl::StrAppend(&f, "; at u = ", plan.interval_us, " us: ", HeldFormula(bi, b), " ",
                      b.packets_held <= plan.worst_usable_packets * kRoundingSlack ? "<=" : ">",
                      absl::StrFormat(" %.2f", plan.worst_usable_packets));
    }
    plan.inputs.push_back({"socket_rate", in.rate_pps, "pps"});
    plan.inputs.push_back({"socket_peak_rate", bi.socket_rate_pps, "pps"});
    plan.inputs.push_back({"truesize", in.truesize_bytes, "B"});
    plan.inputs.push_back({"rcvbuf", in.rcvbuf_bytes, "B"});
    plan.inputs.push_back({"drain_gap", Us(in.drain_gap_s), "us"});
    if (bi.burst_s > 0) {
      plan.inputs.push_back({"burst", Us(bi.burst_s), "us"});
      plan.inputs.push_back({"burst_pause", Us(bi.burst_pause_s), "us"});
    }
    plan.inputs.push_back({"margin", in.margin, "fraction"});
  }
  if (plan.ring_limit_s < kInf) {
    absl::StrAppend(&f, f.empty() ? "" : "; ",
                    absl::StrFormat("ring limit = (1 - %.2f) * %u / %.0f pps - %.2f us = %.2f us",
                                    config.margin, queue.coalesce.rx_ring_size, queue_peak,
                                    Us(plan.interrupt_cost_s), Us(plan.ring_limit_s)));
    plan.inputs.push_back(
        {"rx_ring_size", static_cast<double>(queue.coalesce.rx_ring_size), "descriptors"});
  }
  if (dropped_at_current) {
    absl::StrAppend(&f,
                    absl::StrFormat("; sockets dropped at the current %u us: the interval stays "
                                    "below (1 - %.2f) * %u us = %.2f us",
                                    c.rx_usecs, config.margin, c.rx_usecs, Us(observed_cap_s)));
  }
  plan.inputs.push_back({"rx_rate", plan.rx_rate_pps, "pps"});
  plan.inputs.push_back({"rx_peak_rate", queue_peak, "pps"});
  plan.inputs.push_back({"interrupt_cost", Us(plan.interrupt_cost_s), "us"});
  absl::StrAppend(
      &f, f.empty() ? "" : "; ",
      // %g: a share below 0.01 (--tuner_interrupt_cpu_share=0.0004) must not print 0.00.
      absl::StrFormat("cost floor = %.2f us / %g = %.2f us (ceiling %.0f ints/s, "
                      "cost %s)",
                      Us(plan.interrupt_cost_s), config.interrupt_cpu_share, floor_us,
                      plan.ceiling.max_rate, cost_source));
  if (!plan.unresolved.empty()) {
    absl::StrAppend(&f, "; ", plan.unresolved);
  } else if (plan.constrained && !plan.drop_free) {
    absl::StrAppend(&f, absl::StrFormat("; the longest drop-free interval %.2f us is below the "
                                        "cost floor: no interval is drop-free, the buffer must "
                                        "grow",
                                        Us(plan.max_interval_s)));
    if (plan.near_floor_buffer_interval_us > 0 && worst != nullptr) {
      const int64_t floor_step_us = CeilToStep(floor_us, plan.granularity_us, plan.cap_us);
      const double held_at_floor =
          BurstAt(plan.worst_burst_inputs, static_cast<double>(floor_step_us) * 1e-6).packets_held;
      const double held = plan.worst_burst.packets_held;
      if (held <= held_at_floor * kRoundingSlack) {
        absl::StrAppend(&f, absl::StrFormat("; at %d us no socket holds more than at the cost "
                                            "floor %d us (%s: %.2f <= %.2f packets): the same "
                                            "buffer with fewer interrupts",
                                            plan.interval_us, floor_step_us, plan.worst_socket,
                                            held, held_at_floor));
      } else {
        absl::StrAppend(
            &f, absl::StrFormat("; at %d us (at least twice the cost floor %d us) no socket "
                                "holds more than at the floor plus a share or a packet (%s: "
                                "%.2f <= %.2f + max(1, %.2f * %.2f) packets): about the same "
                                "buffer with far fewer interrupts",
                                plan.interval_us, floor_step_us, plan.worst_socket, held,
                                held_at_floor, config.grown_buffer_slack, held_at_floor));
      }
    }
  }
  return plan;
}

}  // namespace nictune::tuner
