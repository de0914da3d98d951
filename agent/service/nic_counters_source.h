// One emulated NIC's counters as the agent reads them: the real source asks the NIC's control
// socket through driver/emulated's reader (only driver/ talks to the NIC process); tests use a
// fake.
#pragma once

#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "driver/emulated/counters.h"
#include "driver/emulated/counters_reader.h"

namespace nictune::service {

class NicCountersSource {
 public:
  virtual ~NicCountersSource() = default;
  virtual absl::StatusOr<driver::emulated::EmulatedNicCounters> Read() = 0;
  // Where the counters come from, for the sources list ("control socket /run/emu.sock").
  virtual std::string Describe() const = 0;
};

// The real one: GET counters over the NIC's control socket.
class ControlSocketCounters : public NicCountersSource {
 public:
  explicit ControlSocketCounters(std::string socket_path)
      : socket_path_(socket_path), reader_(std::move(socket_path)) {}
  absl::StatusOr<driver::emulated::EmulatedNicCounters> Read() override { return reader_.Read(); }
  std::string Describe() const override { return "control socket " + socket_path_; }

 private:
  std::string socket_path_;
  driver::emulated::EmulatedNicCountersReader reader_;
};

}  // namespace nictune::service
