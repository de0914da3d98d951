// An emulated NIC's counters for the service tests: the readings a test scripts, one per Read().
#pragma once

#include <deque>
#include <string>

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
  std::string Describe() const override { return "scripted counters"; }
  std::deque<absl::StatusOr<driver::emulated::EmulatedNicCounters>> readings;
};

}  // namespace nictune::service
