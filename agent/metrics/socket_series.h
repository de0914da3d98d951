// SPDX-License-Identifier: Apache-2.0
// The kernel's own per-socket counters on /metrics (sock_diag, every network namespace): the
// sockets that drop most, then the fullest, up to the exporter's max_sockets. Their labels are
// those of the probes' socket series, so that the two join.
#pragma once

#include <cstddef>

#include "agent/metrics/swept_series.h"
#include "agent/model/snapshot.h"
#include "prometheus/registry.h"

namespace nictune::metrics {

class SocketSeries {
 public:
  SocketSeries(prometheus::Registry& registry, size_t max_sockets);

  void Update(const model::Snapshot& snapshot);

 private:
  size_t max_sockets_;
  CounterSeries drops_;
  GaugeSeries queued_;
};

}  // namespace nictune::metrics
