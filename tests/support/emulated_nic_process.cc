// SPDX-License-Identifier: Apache-2.0
#include "tests/support/emulated_nic_process.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "driver/emulated/control_client.h"
#include "driver/emulated/control_protocol.h"
#include "driver/emulated/counters_reader.h"

namespace nictune::testing_support {
namespace {

bool PathExists(const std::string& path) {
  struct stat unused {};
  return lstat(path.c_str(), &unused) == 0;
}

}  // namespace

absl::StatusOr<std::unique_ptr<EmulatedNicProcess>> EmulatedNicProcess::Start(
    const std::string& binary, const std::vector<std::string>& flags) {
  static std::atomic<int> sequence{0};
  const int id = sequence.fetch_add(1);
  auto nic = std::unique_ptr<EmulatedNicProcess>(
      new EmulatedNicProcess(absl::StrCat("nt-emu-", getpid(), "-", id),
                             absl::StrCat("/tmp/nictune-emu-", getpid(), "-", id, ".sock")));
  std::vector<std::string> argv = {binary, "--netns=" + nic->netns_,
                                   "--control_socket=" + nic->control_socket_};
  argv.insert(argv.end(), flags.begin(), flags.end());
  absl::StatusOr<BackgroundProgram> program = BackgroundProgram::Start(argv);
  if (!program.ok()) return program.status();
  nic->program_ = std::make_unique<BackgroundProgram>(std::move(*program));
  if (absl::Status ready = nic->program_->WaitForOutput("ready ", absl::Seconds(20)); !ready.ok()) {
    return ready;
  }
  return nic;
}

EmulatedNicProcess::~EmulatedNicProcess() {
  if (program_ != nullptr) {
    (void)driver::emulated::ControlClient(control_socket_)
        .Call(driver::emulated::ControlRequest{.verb = driver::emulated::ControlVerb::kShutdown});
    (void)program_->Wait(absl::Seconds(10));
  }
  if (PathExists("/run/netns/" + netns_)) {
    std::cerr << "emulated NIC left " << netns_ << " behind; deleting it\n";
    (void)RunChecked({"ip", "netns", "del", netns_});
  }
  if (PathExists(control_socket_)) unlink(control_socket_.c_str());
}

absl::StatusOr<driver::emulated::EmulatedNicCounters> EmulatedNicProcess::Counters() const {
  return driver::emulated::EmulatedNicCountersReader(control_socket_).Read();
}

}  // namespace nictune::testing_support
