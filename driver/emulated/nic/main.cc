// SPDX-License-Identifier: Apache-2.0
// nictune-emulated-nic: a userspace NIC on a TAP device inside a network namespace of its own,
// with real rx-usecs / rx-frames / adaptive-rx moderation (driver/emulated/README.md).
#include <arpa/inet.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "driver/emulated/flow_spec.h"
#include "driver/emulated/nic/control_server.h"
#include "driver/emulated/nic/emulated_nic.h"
#include "driver/emulated/nic/named_netns.h"
#include "driver/emulated/nic/napi_pollers.h"
#include "driver/emulated/nic/tap_device.h"
#include "driver/emulated/nic_engine.h"
#include "driver/emulated/queue_flows.h"
#include "driver/netlink/netlink_error.h"

ABSL_FLAG(std::string, netns, "", "name of the network namespace to create (must not exist)");
ABSL_FLAG(std::string, device, "emu0", "TAP device name inside the namespace");
ABSL_FLAG(std::string, address, "10.77.0.1/24", "the TAP's private IPv4 address/prefix");
ABSL_FLAG(std::string, peer, "10.77.0.2", "private source address of the generated frames");
ABSL_FLAG(std::string, control_socket, "", "unix socket path for the control protocol");
ABSL_FLAG(std::string, flows, "port=9000,pps=10000,bytes=128",
          "flows: ';'-separated items of port=,pps=,bytes=[,on_us=,off_us=]");
ABSL_FLAG(int64_t, ring_size, 512, "rx ring descriptors; overflow counts as missed");
ABSL_FLAG(int64_t, rx_usecs, 50, "interrupt after this long since the first pending packet");
ABSL_FLAG(int64_t, rx_frames, 0, "interrupt once this many packets are pending (0: off)");
ABSL_FLAG(bool, adaptive_rx, false, "net_dim adaptive moderation instead of rx_usecs/rx_frames");
ABSL_FLAG(absl::Duration, duration, absl::ZeroDuration(),
          "stop after this long (0: until SHUTDOWN, SIGTERM or SIGINT)");
ABSL_FLAG(int64_t, spin_us, 0, "busy-poll this long before each interrupt instead of sleeping");
ABSL_FLAG(int, fifo_priority, 0,
          "run as SCHED_FIFO at this priority (1-99) so that interrupts fire on time on a busy "
          "host; 0: the normal scheduler");
ABSL_FLAG(int, cpu, -1,
          "pin the NIC's thread and its NAPI threads to this CPU (-1: the CPU it starts on)");
ABSL_FLAG(int, queues, 1, "receive queues (1-16): a multi-queue TAP, one NAPI thread each");

namespace nictune::driver::emulated {
namespace {

std::string Ipv4Text(uint32_t address) {
  return absl::StrFormat("%d.%d.%d.%d", address >> 24, (address >> 16) & 0xff,
                         (address >> 8) & 0xff, address & 0xff);
}

absl::Status PlaceThisThread(int cpu, int fifo_priority) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<size_t>(cpu), &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    return netlink::ErrnoStatus(absl::StrCat("--cpu ", cpu, ": sched_setaffinity"), errno);
  }
  if (fifo_priority > 0) {
    // A NIC's interrupt does not wait for the scheduler; neither should the emulated one. The
    // kernel's RT throttling (sched_rt_runtime_us) still leaves the rest of the host its share.
    sched_param param{};
    param.sched_priority = fifo_priority;
    if (sched_setscheduler(0, SCHED_FIFO, &param) != 0) {
      return netlink::ErrnoStatus(
          absl::StrCat("--fifo_priority ", fifo_priority, ": sched_setscheduler(SCHED_FIFO)"),
          errno);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<uint32_t> PeerFromFlags(uint32_t tap_address) {
  uint32_t peer = 0;
  int unused_prefix = 0;
  if (absl::Status parsed = ParseIpv4Prefix(absl::GetFlag(FLAGS_peer), peer, unused_prefix);
      !parsed.ok()) {
    return parsed;
  }
  if (!IsPrivateIpv4(peer) || peer == tap_address) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--peer ", Ipv4Text(peer), ": must be private and differ from the TAP's address"));
  }
  return peer;
}

// The flows, ring and moderation every queue starts with, checked against the queues.
absl::StatusOr<EmulatedNicTraffic> TrafficFromFlags(size_t queues) {
  absl::StatusOr<std::vector<FlowSpec>> flows = ParseFlows(absl::GetFlag(FLAGS_flows));
  if (!flows.ok()) return flows.status();
  EmulatedNicTraffic traffic{.flows = *flows,
                             .ring_size = absl::GetFlag(FLAGS_ring_size),
                             .moderation = {.rx_usecs = absl::GetFlag(FLAGS_rx_usecs),
                                            .rx_frames = absl::GetFlag(FLAGS_rx_frames),
                                            .adaptive_rx = absl::GetFlag(FLAGS_adaptive_rx)}};
  absl::StatusOr<std::vector<std::vector<size_t>>> assigned =
      AssignFlowsToQueues(traffic.flows, queues);
  if (!assigned.ok()) return assigned.status();
  absl::Status engine =
      NicEngine::Create(traffic.flows, traffic.ring_size, traffic.moderation, 0).status();
  if (!engine.ok()) return engine;
  return traffic;
}

// Per namespace, so this quiets only the emulated NIC's own host: no IPv6 router and neighbour
// solicitations mixing into the counts.
void DisableIpv6InThisNamespace() {
  const int fd = open("/proc/sys/net/ipv6/conf/all/disable_ipv6", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;  // a kernel without IPv6
  if (write(fd, "1", 1) != 1) {
    std::cerr << "nictune-emulated-nic: disabling IPv6 in the namespace: " << std::strerror(errno)
              << "\n";
  }
  close(fd);
}

absl::Status Main() {
  const std::string netns_name = absl::GetFlag(FLAGS_netns);
  const std::string socket_path = absl::GetFlag(FLAGS_control_socket);
  if (netns_name.empty() || socket_path.empty()) {
    return absl::InvalidArgumentError("--netns and --control_socket are required");
  }
  TapConfig tap_config{.name = absl::GetFlag(FLAGS_device)};
  if (absl::Status parsed = ParseIpv4Prefix(absl::GetFlag(FLAGS_address), tap_config.address,
                                            tap_config.prefix_length);
      !parsed.ok()) {
    return parsed;
  }
  absl::StatusOr<uint32_t> peer = PeerFromFlags(tap_config.address);
  if (!peer.ok()) return peer.status();
  tap_config.queues = static_cast<size_t>(std::max(0, absl::GetFlag(FLAGS_queues)));
  // Validate everything before creating anything.
  absl::StatusOr<EmulatedNicTraffic> traffic = TrafficFromFlags(tap_config.queues);
  if (!traffic.ok()) return traffic.status();

  const int cpu = absl::GetFlag(FLAGS_cpu) >= 0 ? absl::GetFlag(FLAGS_cpu) : sched_getcpu();
  if (absl::Status placed = PlaceThisThread(cpu, absl::GetFlag(FLAGS_fifo_priority));
      !placed.ok()) {
    return placed;
  }
  // Timers fire within a microsecond instead of the default 50 us slack.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigprocmask(SIG_BLOCK, &signals, nullptr);

  absl::StatusOr<std::unique_ptr<NamedNetworkNamespace>> netns =
      NamedNetworkNamespace::CreateAndEnter(netns_name);
  if (!netns.ok()) return netns.status();
  DisableIpv6InThisNamespace();
  absl::StatusOr<std::unique_ptr<TapDevice>> tap = TapDevice::Create(tap_config);
  if (!tap.ok()) return tap.status();
  // One step below the NIC's thread: a burst is written whole before its poll starts, and the
  // polls run before a reader below them on this CPU.
  const int fifo_priority = absl::GetFlag(FLAGS_fifo_priority);
  absl::StatusOr<std::vector<pid_t>> pollers = StartThreadedNapi(
      NapiPollerConfig{.device = tap_config.name,
                       .queues = tap_config.queues,
                       .cpu = cpu,
                       .fifo_priority = fifo_priority > 1 ? fifo_priority - 1 : 0},
      [&tap](size_t queue, std::span<const uint8_t> frame) {
        return (*tap)->Deliver(queue, frame);
      });
  if (!pollers.ok()) return pollers.status();
  const int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd < 0) return netlink::ErrnoStatus("epoll_create1", errno);
  absl::StatusOr<std::unique_ptr<ControlServer>> server =
      ControlServer::Listen(socket_path, epoll_fd);
  if (!server.ok()) {
    close(epoll_fd);
    return server.status();
  }
  absl::StatusOr<std::unique_ptr<EmulatedNic>> nic =
      EmulatedNic::Create(epoll_fd, **tap, **server, *traffic, tap_config.address,
                          EmulatedNicOptions{.peer_address = *peer,
                                             .duration = absl::GetFlag(FLAGS_duration),
                                             .spin_ns = absl::GetFlag(FLAGS_spin_us) * 1000,
                                             .napi_threads = {pollers->begin(), pollers->end()}});
  if (!nic.ok()) {
    close(epoll_fd);
    return nic.status();
  }
  std::cout << "ready netns=" << netns_name << " device=" << tap_config.name
            << " address=" << Ipv4Text(tap_config.address) << " peer=" << Ipv4Text(*peer)
            << " queues=" << tap_config.queues << " cpu=" << cpu
            << " napi_threads=" << absl::StrJoin(*pollers, ",") << " control_socket=" << socket_path
            << std::endl;
  absl::Status ran = (*nic)->Run();
  std::cout << "final " << FormatCounters((*nic)->Counters()) << std::endl;
  nic->reset();
  server->reset();
  tap->reset();
  close(epoll_fd);
  if (absl::Status deleted = (*netns)->Delete(); !deleted.ok() && ran.ok()) return deleted;
  return ran;
}

}  // namespace
}  // namespace nictune::driver::emulated

int main(int argc, char** argv) {
  absl::FlagsUsageConfig usage_config;
  usage_config.contains_help_flags = [](absl::string_view path) {
    return path.find("driver/emulated") != absl::string_view::npos;
  };
  absl::SetFlagsUsageConfig(usage_config);
  absl::SetProgramUsageMessage(
      "nictune-emulated-nic --netns=NAME --control_socket=PATH [--flows=...]: a userspace NIC "
      "on a TAP device with real interrupt moderation, for tests and demos");
  absl::ParseCommandLine(argc, argv);
  const absl::Status status = nictune::driver::emulated::Main();
  if (!status.ok()) {
    std::cerr << "nictune-emulated-nic: " << status << "\n";
    return 1;
  }
  return 0;
}
