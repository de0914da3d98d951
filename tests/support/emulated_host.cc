// SPDX-License-Identifier: Apache-2.0
#include "tests/support/emulated_host.h"

#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "driver/emulated/control_client.h"
#include "driver/emulated/control_protocol.h"
#include "driver/emulated/counters_reader.h"
#include "tests/support/errno_error.h"
#include "tests/support/netns_host.h"

namespace nictune::testing_support {
namespace {

using driver::emulated::ControlClient;
using driver::emulated::ControlRequest;
using driver::emulated::ControlVerb;

constexpr double kCalibrationRatePps = 200;

bool PathExists(const std::string& path) {
  struct stat unused {};
  return lstat(path.c_str(), &unused) == 0;
}

// Puts the calling thread on one CPU at a SCHED_FIFO priority for as long as it lives, so that
// the threads it starts inherit both; puts the old settings back at the end.
class PinnedRealtimeScope {
 public:
  static absl::StatusOr<std::unique_ptr<PinnedRealtimeScope>> Enter(int cpu, int priority) {
    auto scope = std::unique_ptr<PinnedRealtimeScope>(new PinnedRealtimeScope());
    if (int rc =
            pthread_getaffinity_np(pthread_self(), sizeof(scope->old_cpus_), &scope->old_cpus_);
        rc != 0) {
      return ErrnoError("pthread_getaffinity_np", rc);
    }
    if (int rc = pthread_getschedparam(pthread_self(), &scope->old_policy_, &scope->old_param_);
        rc != 0) {
      return ErrnoError("pthread_getschedparam", rc);
    }
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(static_cast<size_t>(cpu), &one);
    if (int rc = pthread_setaffinity_np(pthread_self(), sizeof(one), &one); rc != 0) {
      return ErrnoError(absl::StrCat("pthread_setaffinity_np CPU ", cpu), rc);
    }
    scope->entered_ = true;
    sched_param param{};
    param.sched_priority = priority;
    if (int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param); rc != 0) {
      return ErrnoError(absl::StrCat("pthread_setschedparam SCHED_FIFO ", priority), rc);
    }
    return scope;
  }
  PinnedRealtimeScope(const PinnedRealtimeScope&) = delete;
  PinnedRealtimeScope& operator=(const PinnedRealtimeScope&) = delete;
  ~PinnedRealtimeScope() {
    if (!entered_) return;
    (void)pthread_setschedparam(pthread_self(), old_policy_, &old_param_);
    (void)pthread_setaffinity_np(pthread_self(), sizeof(old_cpus_), &old_cpus_);
  }

 private:
  PinnedRealtimeScope() = default;
  cpu_set_t old_cpus_{};
  int old_policy_ = SCHED_OTHER;
  sched_param old_param_{};
  bool entered_ = false;
};

}  // namespace

EmulatedHostOptions SmallSocketNicOptions(const std::string& nic_binary) {
  return EmulatedHostOptions{.nic_binary = nic_binary,
                             .device = "emu0",
                             .rate_pps = 10000,
                             .frame_bytes = 128,
                             .rx_usecs = 100,
                             .max_run = absl::Minutes(2),
                             .rcvbuf_bytes = 12000};
}

absl::StatusOr<std::unique_ptr<EmulatedHost>> EmulatedHost::Start(
    const EmulatedHostOptions& options) {
  static std::atomic<int> sequence{0};
  const int id = sequence.fetch_add(1);
  auto host = std::unique_ptr<EmulatedHost>(
      new EmulatedHost(options, absl::StrCat("nt-host-", getpid(), "-", id),
                       options.control_socket.empty()
                           ? absl::StrCat("/tmp/nictune-host-", getpid(), "-", id, ".sock")
                           : options.control_socket));
  // Flow 0 is the test's, silent until its receiver listens (else the kernel answers with
  // port unreachables); flow 1 feeds the calibration socket.
  const std::string flows = absl::StrCat(
      "port=", options.port, ",pps=0,bytes=", options.frame_bytes, ";port=", options.port + 1,
      ",pps=", kCalibrationRatePps, ",bytes=", options.frame_bytes);
  absl::StatusOr<BackgroundProgram> nic = BackgroundProgram::Start(
      {options.nic_binary, "--netns=" + host->netns_, "--control_socket=" + host->control_socket_,
       "--device=" + options.device, absl::StrCat("--address=", options.address, "/24"),
       "--flows=" + flows, absl::StrCat("--rx_usecs=", options.rx_usecs),
       absl::StrCat("--ring_size=", options.ring_size), absl::StrCat("--cpu=", options.cpu),
       absl::StrCat("--fifo_priority=", options.nic_fifo_priority),
       absl::StrCat("--spin_us=", options.nic_spin_us),
       absl::StrCat("--duration=", absl::ToInt64Seconds(options.max_run), "s")});
  if (!nic.ok()) return nic.status();
  host->nic_ = std::make_unique<BackgroundProgram>(std::move(*nic));
  if (absl::Status ready = host->nic_->WaitForOutput("ready ", absl::Seconds(20)); !ready.ok()) {
    return ready;
  }
  if (absl::Status calibrated = host->Calibrate(); !calibrated.ok()) return calibrated;
  if (absl::Status started = host->StartReceiver(options.batch, options.drain_gap); !started.ok()) {
    return started;
  }
  if (absl::Status flowing = host->SetRate(options.rate_pps); !flowing.ok()) return flowing;
  return host;
}

absl::Status EmulatedHost::Calibrate() {
  absl::StatusOr<std::unique_ptr<UdpReceiver>> socket = absl::InternalError("not created");
  absl::Status ran = RunInNamedNamespace(netns_, [&] {
    socket = UdpReceiver::Create(UdpReceiverOptions{
        .bind_address = options_.address, .port = static_cast<uint16_t>(options_.port + 1)});
  });
  if (!ran.ok()) return ran;
  if (!socket.ok()) return socket.status();
  absl::SleepFor(absl::Milliseconds(300));  // ~60 datagrams queue up, far below its buffer
  absl::StatusOr<std::string> stopped =
      ControlClient(control_socket_)
          .Call(ControlRequest{.verb = ControlVerb::kSetFlowRate, .flow = 1, .rate_pps = 0});
  if (!stopped.ok()) return stopped.status();
  // The last interrupt of the flow has fired: nothing arrives while the queue is measured.
  absl::SleepFor(absl::Microseconds(options_.rx_usecs) + absl::Milliseconds(50));
  absl::StatusOr<QueuedMemory> queued = (*socket)->MeasureQueuedAndDrain();
  if (!queued.ok()) return queued.status();
  if (queued->queued_datagrams == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("calibration socket ", options_.address, ":", options_.port + 1, " in netns ",
                     netns_, ": no datagram arrived in 300 ms at ", kCalibrationRatePps, " pps"));
  }
  truesize_bytes_ = static_cast<int64_t>(queued->rmem_alloc / queued->queued_datagrams);
  return absl::OkStatus();
}

absl::Status EmulatedHost::StartReceiver(unsigned int batch, absl::Duration drain_gap) {
  absl::StatusOr<std::unique_ptr<PinnedRealtimeScope>> scope =
      PinnedRealtimeScope::Enter(options_.cpu, options_.receiver_fifo_priority);
  if (!scope.ok()) return scope.status();
  absl::StatusOr<std::unique_ptr<SlowReceiver>> receiver =
      SlowReceiver::Start(netns_, UdpReceiverOptions{.bind_address = options_.address,
                                                     .port = options_.port,
                                                     .rcvbuf_bytes = options_.rcvbuf_bytes,
                                                     .batch = batch,
                                                     .drain_gap = drain_gap,
                                                     .run_time = options_.max_run});
  if (!receiver.ok()) return receiver.status();
  receiver_ = *std::move(receiver);
  return absl::OkStatus();
}

absl::Status EmulatedHost::ReplaceReceiver(unsigned int batch, absl::Duration drain_gap) {
  if (receiver_ != nullptr) {
    if (absl::StatusOr<UdpReceiverReport> report = receiver_->StopAndReport(); !report.ok()) {
      return report.status();
    }
    receiver_.reset();  // closes the socket, so that the new one can bind the port
  }
  return StartReceiver(batch, drain_gap);
}

absl::Status EmulatedHost::ReplaceReceiverBuffer(int rcvbuf_bytes) {
  options_.rcvbuf_bytes = rcvbuf_bytes;
  return ReplaceReceiver(options_.batch, options_.drain_gap);
}

absl::StatusOr<driver::emulated::EmulatedNicCounters> EmulatedHost::Counters() const {
  return driver::emulated::EmulatedNicCountersReader(control_socket_).Read();
}

absl::Status EmulatedHost::SetRate(double rate_pps) {
  return ControlClient(control_socket_)
      .Call(ControlRequest{.verb = ControlVerb::kSetFlowRate, .flow = 0, .rate_pps = rate_pps})
      .status();
}

absl::StatusOr<int64_t> EmulatedHost::Knob(const std::string& key) const {
  absl::StatusOr<std::string> value =
      ControlClient(control_socket_).Call(ControlRequest{.verb = ControlVerb::kGet, .key = key});
  if (!value.ok()) return value.status();
  int64_t parsed = 0;
  if (!absl::SimpleAtoi(*value, &parsed)) {
    return absl::InternalError(
        absl::StrCat("GET ", key, " on ", control_socket_, ": not an integer: \"", *value, "\""));
  }
  return parsed;
}

absl::Status EmulatedHost::SetKnob(const std::string& key, int64_t value) {
  return ControlClient(control_socket_)
      .Call(ControlRequest{.verb = ControlVerb::kSet, .key = key, .value = value})
      .status();
}

absl::StatusOr<std::map<std::string, int64_t>> EmulatedHost::Knobs(
    const std::vector<std::string>& keys) const {
  std::map<std::string, int64_t> values;
  for (const std::string& key : keys) {
    absl::StatusOr<int64_t> value = Knob(key);
    if (!value.ok()) return value.status();
    values[key] = *value;
  }
  return values;
}

std::string DescribeKnobs(const std::map<std::string, int64_t>& values) {
  std::string out;
  for (const auto& [key, value] : values)
    absl::StrAppend(&out, out.empty() ? "" : " ", key, "=", value);
  return out;
}

absl::StatusOr<int64_t> EmulatedHost::RxUsecs() const {
  return Knob(std::string(driver::emulated::kKeyRxUsecs));
}

EmulatedHost::~EmulatedHost() {
  receiver_.reset();
  if (nic_ != nullptr) {
    (void)ControlClient(control_socket_).Call(ControlRequest{.verb = ControlVerb::kShutdown});
    (void)nic_->Wait(absl::Seconds(10));
  }
  if (PathExists("/run/netns/" + netns_)) {
    std::cerr << "emulated NIC left " << netns_ << " behind; deleting it\n";
    (void)RunChecked({"ip", "netns", "del", netns_});
  }
  if (PathExists(control_socket_)) unlink(control_socket_.c_str());
}

}  // namespace nictune::testing_support
