// SPDX-License-Identifier: Apache-2.0
// One emulated NIC's counters as the agent reads them: the real source asks the NIC's control
// socket through driver/emulated's reader (only driver/ talks to the NIC process); tests use a
// fake.
#pragma once

#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "driver/emulated/counters.h"
#include "driver/emulated/counters_reader.h"

namespace nictune::service {

class NicCountersSource {
 public:
  virtual ~NicCountersSource() = default;
  virtual absl::StatusOr<driver::emulated::EmulatedNicCounters> Read() = 0;
  // One receive queue's counters, as `ethtool -S` shows a NIC's per queue; Unimplemented for a
  // source that has only the device's.
  virtual absl::StatusOr<driver::emulated::EmulatedNicCounters> ReadQueue(size_t queue) {
    return absl::UnimplementedError(absl::StrCat(Describe(), ": no counters of queue ", queue));
  }
  // Where the counters come from, for the sources list ("control socket /run/emu.sock").
  virtual std::string Describe() const = 0;
};

// The real one: GET counters over the NIC's control socket.
class ControlSocketCounters : public NicCountersSource {
 public:
  explicit ControlSocketCounters(std::string socket_path)
      : socket_path_(socket_path), reader_(std::move(socket_path)) {}
  absl::StatusOr<driver::emulated::EmulatedNicCounters> Read() override { return reader_.Read(); }
  absl::StatusOr<driver::emulated::EmulatedNicCounters> ReadQueue(size_t queue) override {
    return reader_.ReadQueue(queue);
  }
  std::string Describe() const override { return "control socket " + socket_path_; }

 private:
  std::string socket_path_;
  driver::emulated::EmulatedNicCountersReader reader_;
};

}  // namespace nictune::service
