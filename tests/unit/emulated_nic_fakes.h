// SPDX-License-Identifier: Apache-2.0
// An emulated NIC's counters for the service tests: the readings a test scripts, one per Read().
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/service/nic_counters_source.h"
#include "driver/emulated/counters.h"

namespace nictune::service {

class ScriptedCounters : public NicCountersSource {
 public:
  absl::StatusOr<driver::emulated::EmulatedNicCounters> Read() override {
    if (readings.empty()) return absl::UnavailableError("scripted counters: no reading left");
    absl::StatusOr<driver::emulated::EmulatedNicCounters> next = readings.front();
    readings.pop_front();
    return next;
  }
  absl::StatusOr<driver::emulated::EmulatedNicCounters> ReadQueue(size_t queue) override {
    if (queue >= queue_readings.size()) return NicCountersSource::ReadQueue(queue);
    return queue_readings[queue];
  }
  std::string Describe() const override { return "scripted counters"; }
  std::deque<absl::StatusOr<driver::emulated::EmulatedNicCounters>> readings;
  // What each queue's reading returns, every time; beyond them: Unimplemented.
  std::vector<absl::StatusOr<driver::emulated::EmulatedNicCounters>> queue_readings;
};

}  // namespace nictune::service
