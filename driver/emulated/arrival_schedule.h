// SPDX-License-Identifier: Apache-2.0
// When each flow's next packet arrives at the emulated NIC, merged across flows in time order.
// Pure: times are nanoseconds on whatever clock the caller passes in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "driver/emulated/flow_spec.h"

namespace nictune::driver::emulated {

inline constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

struct Arrival {
  int64_t time_ns = kNever;  // kNever: no flow will send again
  size_t flow = 0;
  uint64_t sequence = 0;  // per flow, from 0
};

class ArrivalSchedule {
 public:
  ArrivalSchedule(std::vector<FlowSpec> flows, int64_t start_ns);

  // The earliest packet not yet taken; ties go to the lower flow index.
  Arrival Peek() const;
  void Pop();

  // The flow's packets from now on are spaced for `rate_pps`; its sequence numbers continue.
  void SetRate(size_t flow, double rate_pps, int64_t now_ns);

  const std::vector<FlowSpec>& flows() const { return flows_; }

 private:
  // Packets of one rate setting are evenly spaced on the flow's "on" time axis; off periods are
  // skipped when mapping that axis to wall time, which makes on-off bursts exact.
  struct Cursor {
    int64_t epoch_start_ns = 0;
    uint64_t index_in_epoch = 0;
    uint64_t sequence = 0;
  };
  int64_t NextTime(size_t flow) const;

  std::vector<FlowSpec> flows_;
  std::vector<Cursor> cursors_;
};

}  // namespace nictune::driver::emulated
