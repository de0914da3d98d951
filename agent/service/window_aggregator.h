// SPDX-License-Identifier: Apache-2.0
// Joins sampling intervals into a tuner window: the window's counts are one Window computed from
// the snapshot at its start to the latest one (counters are cumulative, so this equals the sum of
// the intervals), and its socket peaks are the highest of its intervals (the probes reset peaks at
// every read, so the end snapshot alone would hold only the last interval's). So are its peak
// receive rates, per device and per NAPI instance, and its peak arrivals per socket: a window's
// mean hides its bursts.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "absl/status/statusor.h"
#include "agent/model/snapshot.h"
#include "agent/model/window.h"

namespace nictune::service {

class WindowAggregator {
 public:
  // Begins a window at `start`, forgetting any window in progress.
  void Start(model::Snapshot start);
  bool started() const { return start_.has_value(); }
  uint32_t intervals() const { return intervals_; }

  // Notes one interval of the window in progress.
  void AddInterval(const model::Window& interval);

  // The window from its start to `end`; the next window begins at `end`. FailedPrecondition
  // before Start.
  absl::StatusOr<model::Window> Close(const model::Snapshot& end);

 private:
  std::optional<model::Snapshot> start_;
  uint32_t intervals_ = 0;
  // A socket's peaks over the window's intervals (each interval's own are since the last read).
  struct SocketPeaks {
    double fill = 0;
    double drain_gap_s = 0;
  };
  std::map<uint64_t, SocketPeaks> socket_peaks_by_cookie_;
  std::map<uint64_t, double> peak_arrivals_by_cookie_;  // intervals that measured them only
  std::map<std::string, double> peak_rx_by_device_;
  // By (ifindex, napi id, poller thread): NapiWindow's identity.
  std::map<std::tuple<int32_t, uint32_t, uint32_t>, double> peak_work_by_napi_;
};

}  // namespace nictune::service
