// The interrupt interval a queue can afford (DESIGN.md §5): the longest interval, in the driver's
// granularity, that neither overflows the worst socket fed by the queue nor the rx ring, and not
// shorter than the cost of interrupts allows. Coalescing, deferral and rmem policies share it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tuner/fill_math.h"
#include "tuner/observation.h"
#include "tuner/policy_config.h"
#include "tuner/recommendation.h"

namespace nictune::tuner {

struct IntervalPlan {
  // False when neither a socket with traffic nor a ring limit constrains the interval.
  bool constrained = false;
  // Worst socket (smallest drop-free interval); empty when no socket saw packets.
  std::string worst_socket;
  bool worst_socket_rcvbuf_locked = false;
  FillInputs worst_inputs;  // rate, truesize, rcvbuf, drain gap and margin of the worst socket
  FillResult worst_fill;
  double reader_softirq_load = 0;  // rho applied to the worst socket's u_max (0: own CPU)
  double rx_rate_pps = 0;          // all packets on the queue
  double ring_limit_s = 0;         // (1 - margin) * ring / rx_rate; +inf when unknown
  double max_interval_s = 0;       // min(socket u_max, ring limit); +inf when unconstrained
  double interrupt_cost_s = 0;
  bool interrupt_cost_measured = false;
  InterruptCeiling ceiling;
  int64_t granularity_us = 1;
  int64_t cap_us = 0;       // largest allowed interval (driver and tuner caps), in granularity
  int64_t interval_us = 0;  // the choice
  bool drop_free = false;   // interval_us <= max_interval_s: no overflow predicted
  double predicted_interrupt_rate = 0;
  std::string formula;  // the arithmetic up to the choice, numbers substituted
  std::vector<Input> inputs;
};

// granularity_us: the knob's step (0 is taken as 1); max_us: the largest value the knob takes.
absl::StatusOr<IntervalPlan> PlanInterval(const QueueObservation& queue, absl::Duration window,
                                          const PolicyConfig& config, uint32_t granularity_us,
                                          int64_t max_us);

}  // namespace nictune::tuner
