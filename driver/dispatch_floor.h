// SPDX-License-Identifier: Apache-2.0
// Calibration for the probe-overhead bench, not part of the agent: empty BPF programs on the
// tracepoints the default probe set uses (irq:softirq_entry, irq:softirq_exit, napi:napi_poll),
// so that a measurement can tell what any program on those hooks costs (the kernel's dispatch to
// BPF) from what the probes' bodies add. nictuned never attaches it.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "driver/probe_source.h"

namespace nictune::driver {

class DispatchFloor {
 public:
  virtual ~DispatchFloor() = default;  // detaches the programs
  // run_cnt / run_time_ns of each program from kernel.bpf_stats (zero while it is off), named
  // "dispatch_floor:TRACEPOINT".
  virtual std::vector<ProbeCost> Cost() const = 0;
};

enum class FloorHooks {
  kDefaultSet,    // softirq_entry, softirq_exit and napi_poll
  kNapiPollOnly,  // the one hook the default set keeps attached on every packet of a flood
};

// Loads and attaches the programs of `hooks`, or fails naming the one the kernel refused and why.
absl::StatusOr<std::unique_ptr<DispatchFloor>> AttachDispatchFloor(
    FloorHooks hooks = FloorHooks::kDefaultSet);

}  // namespace nictune::driver
