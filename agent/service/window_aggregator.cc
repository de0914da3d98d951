// SPDX-License-Identifier: Apache-2.0
#include "agent/service/window_aggregator.h"

#include <algorithm>
#include <utility>

namespace nictune::service {

void WindowAggregator::Start(model::Snapshot start) {
  start_ = std::move(start);
  intervals_ = 0;
  peak_fill_by_cookie_.clear();
}

void WindowAggregator::AddInterval(const model::Window& interval) {
  ++intervals_;
  for (const model::SocketWindow& socket : interval.sockets) {
    double& peak = peak_fill_by_cookie_[socket.key.cookie];
    peak = std::max(peak, socket.peak_fill);
  }
}

absl::StatusOr<model::Window> WindowAggregator::Close(const model::Snapshot& end) {
  if (!start_) return absl::FailedPreconditionError("tuner window: closed before it was started");
  absl::StatusOr<model::Window> window = model::ComputeWindow(*start_, end);
  if (window.ok()) {
    for (model::SocketWindow& socket : window->sockets) {
      const auto peak = peak_fill_by_cookie_.find(socket.key.cookie);
      if (peak != peak_fill_by_cookie_.end()) {
        socket.peak_fill = std::max(socket.peak_fill, peak->second);
      }
    }
  }
  Start(end);
  return window;
}

}  // namespace nictune::service
