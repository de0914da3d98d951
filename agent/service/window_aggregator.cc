// SPDX-License-Identifier: Apache-2.0
#include "agent/service/window_aggregator.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "agent/model/socket_arrivals.h"

namespace nictune::service {

void WindowAggregator::Start(model::Snapshot start) {
  start_ = std::move(start);
  intervals_ = 0;
  socket_peaks_by_cookie_.clear();
  peak_arrivals_by_cookie_.clear();
  peak_rx_by_device_.clear();
  peak_work_by_napi_.clear();
}

namespace {

double RxPerS(const model::DeviceWindow& device) {
  const auto rx = device.per_s.find("rx_packets");
  return rx == device.per_s.end() ? 0 : rx->second;
}

// An interval's socket arrivals count towards the peak only when the probe saw at least this
// share of it: a short slot's few enqueues, scaled up by its small share, would read as a burst
// that never was, and the tuner sizes buffers for the peak.
constexpr double kMinPeakCoverage = 0.5;

std::tuple<int32_t, uint32_t, uint32_t> NapiKey(const model::NapiWindow& napi) {
  return {napi.ifindex, napi.napi_id, napi.thread_pid};
}

}  // namespace

void WindowAggregator::AddInterval(const model::Window& interval) {
  ++intervals_;
  const model::RcvbuffDropsByCookie rcvbuff = model::IndexRcvbuffDrops(interval.drops);
  for (const model::SocketWindow& socket : interval.sockets) {
    SocketPeaks& peaks = socket_peaks_by_cookie_[socket.key.cookie];
    peaks.fill = std::max(peaks.fill, socket.peak_fill);
    peaks.drain_gap_s = std::max(peaks.drain_gap_s, socket.longest_drain_gap_s);
    if (socket.coverage.share < kMinPeakCoverage) continue;
    if (std::optional<double> arrivals =
            model::SocketArrivalsPerS(socket, rcvbuff, interval.seconds)) {
      double& most = peak_arrivals_by_cookie_[socket.key.cookie];
      most = std::max(most, *arrivals);
    }
  }
  for (const model::DeviceWindow& device : interval.devices) {
    double& peak = peak_rx_by_device_[device.name];
    peak = std::max(peak, RxPerS(device));
  }
  for (const model::NapiWindow& napi : interval.napis) {
    double& peak = peak_work_by_napi_[NapiKey(napi)];
    peak = std::max(peak, napi.work_per_s);
  }
}

absl::StatusOr<model::Window> WindowAggregator::Close(const model::Snapshot& end) {
  if (!start_) return absl::FailedPreconditionError("tuner window: closed before it was started");
  absl::StatusOr<model::Window> window = model::ComputeWindow(*start_, end);
  if (window.ok()) {
    const model::RcvbuffDropsByCookie rcvbuff = model::IndexRcvbuffDrops(window->drops);
    for (model::SocketWindow& socket : window->sockets) {
      const auto peaks = socket_peaks_by_cookie_.find(socket.key.cookie);
      if (peaks != socket_peaks_by_cookie_.end()) {
        socket.peak_fill = std::max(socket.peak_fill, peaks->second.fill);
        socket.longest_drain_gap_s =
            std::max(socket.longest_drain_gap_s, peaks->second.drain_gap_s);
      }
      const auto arrivals = peak_arrivals_by_cookie_.find(socket.key.cookie);
      if (arrivals != peak_arrivals_by_cookie_.end()) {
        socket.peak_arrivals_per_s =
            std::max(arrivals->second,
                     model::SocketArrivalsPerS(socket, rcvbuff, window->seconds).value_or(0));
      }
    }
    // At least the window's mean: an interval that failed to compute left no rate.
    for (model::DeviceWindow& device : window->devices) {
      const auto peak = peak_rx_by_device_.find(device.name);
      device.peak_rx_packets_per_s =
          std::max(RxPerS(device), peak == peak_rx_by_device_.end() ? 0 : peak->second);
    }
    for (model::NapiWindow& napi : window->napis) {
      const auto peak = peak_work_by_napi_.find(NapiKey(napi));
      napi.peak_work_per_s =
          std::max(napi.work_per_s, peak == peak_work_by_napi_.end() ? 0 : peak->second);
    }
  }
  Start(end);
  return window;
}

}  // namespace nictune::service
