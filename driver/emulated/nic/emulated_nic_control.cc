// SPDX-License-Identifier: Apache-2.0
// The emulated NIC's answers to control requests (driver/emulated/control_protocol.h): settings
// and counters of the device or of one receive queue.
#include "absl/strings/str_cat.h"
#include "driver/emulated/nic/emulated_nic.h"

namespace nictune::driver::emulated {

std::string EmulatedNic::Handle(const ControlRequest& request) {
  if (request.queue && *request.queue >= queues_.size()) {
    return FormatErrorResponse(absl::NotFoundError(
        absl::StrCat("queue ", *request.queue, ": the NIC has ", queues_.size(), " queues")));
  }
  switch (request.verb) {
    case ControlVerb::kShutdown:
      stop_ = true;
      return FormatOkResponse("shutting down");
    case ControlVerb::kGet:
      return HandleGet(request);
    case ControlVerb::kSetFlowRate:
      return HandleSetFlowRate(request);
    case ControlVerb::kSet:
      return HandleSet(request);
  }
  return FormatErrorResponse(absl::InternalError("unknown control verb"));
}

std::string EmulatedNic::HandleGet(const ControlRequest& request) const {
  if (request.key == kKeyCounters) {
    return FormatOkResponse(
        FormatCounters(request.queue ? QueueCounters(*request.queue) : Counters()));
  }
  // A device's setting is queue 0's: they differ only after a per-queue SET.
  const NicEngine& engine = *queues_[request.queue.value_or(0)].engine;
  const ModerationSettings& current = engine.settings();
  if (request.key == kKeyRxUsecs) return FormatOkResponse(absl::StrCat(current.rx_usecs));
  if (request.key == kKeyRxFrames) return FormatOkResponse(absl::StrCat(current.rx_frames));
  if (request.key == kKeyAdaptiveRx) return FormatOkResponse(current.adaptive_rx ? "1" : "0");
  return FormatOkResponse(absl::StrCat(engine.ring_size()));
}

std::string EmulatedNic::HandleSet(const ControlRequest& request) {
  if (request.key == kKeyAdaptiveRx && request.value != 0 && request.value != 1) {
    return FormatErrorResponse(absl::InvalidArgumentError(
        absl::StrCat("adaptive_rx ", request.value, " is neither 0 nor 1")));
  }
  if (request.queue) {
    absl::Status set = SetOnQueue(queues_[*request.queue], request);
    if (!set.ok()) return FormatErrorResponse(set);
    return FormatOkResponse(absl::StrCat(request.value));
  }
  // Every queue or none: the settings are range-checked alike, so the first refusal is the only.
  for (RxQueue& queue : queues_) {
    if (absl::Status set = SetOnQueue(queue, request); !set.ok()) return FormatErrorResponse(set);
  }
  return FormatOkResponse(absl::StrCat(request.value));
}

absl::Status EmulatedNic::SetOnQueue(RxQueue& queue, const ControlRequest& request) {
  if (request.key == kKeyRingSize) return queue.engine->SetRingSize(request.value);
  ModerationSettings changed = queue.engine->settings();
  if (request.key == kKeyAdaptiveRx) {
    changed.adaptive_rx = request.value == 1;
  } else {
    (request.key == kKeyRxUsecs ? changed.rx_usecs : changed.rx_frames) = request.value;
  }
  return queue.engine->SetModeration(changed);
}

std::string EmulatedNic::HandleSetFlowRate(const ControlRequest& request) {
  if (request.flow >= flow_places_.size()) {
    return FormatErrorResponse(absl::NotFoundError(
        absl::StrCat("flow ", request.flow, ": there are ", flow_places_.size(), " flows")));
  }
  const auto [queue, local] = flow_places_[request.flow];
  absl::Status set = queues_[queue].engine->SetFlowRate(local, request.rate_pps, NowNs());
  if (!set.ok()) return FormatErrorResponse(set);
  return FormatOkResponse(absl::StrCat(request.rate_pps));
}

}  // namespace nictune::driver::emulated
