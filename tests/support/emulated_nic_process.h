// SPDX-License-Identifier: Apache-2.0
// One nictune-emulated-nic process for a test: a namespace name and control socket unique to this
// process, started and waited for until it is ready. The destructor shuts it down and, should it
// have died without cleaning up, deletes its namespace and socket itself, also when a test fails
// half way.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "driver/emulated/counters.h"
#include "tests/support/subprocess.h"

namespace nictune::testing_support {

class EmulatedNicProcess {
 public:
  // Runs `binary` with --netns and --control_socket of its own followed by `flags` (device,
  // address, flows, moderation, --duration as a bound on the traffic, ...).
  static absl::StatusOr<std::unique_ptr<EmulatedNicProcess>> Start(
      const std::string& binary, const std::vector<std::string>& flags);
  EmulatedNicProcess(const EmulatedNicProcess&) = delete;
  EmulatedNicProcess& operator=(const EmulatedNicProcess&) = delete;
  ~EmulatedNicProcess();

  const std::string& netns() const { return netns_; }
  const std::string& control_socket() const { return control_socket_; }
  BackgroundProgram& program() { return *program_; }

  absl::StatusOr<driver::emulated::EmulatedNicCounters> Counters() const;

 private:
  EmulatedNicProcess(std::string netns, std::string control_socket)
      : netns_(std::move(netns)), control_socket_(std::move(control_socket)) {}

  std::string netns_;
  std::string control_socket_;
  std::unique_ptr<BackgroundProgram> program_;
};

}  // namespace nictune::testing_support
