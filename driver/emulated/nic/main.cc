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
#include "driver/emulated/flow_spec.h"
#include "driver/emulated/nic/control_server.h"
#include "driver/emulated/nic/emulated_nic.h"
#include "driver/emulated/nic/named_netns.h"
#include "driver/emulated/nic/tap_device.h"
#include "driver/emulated/nic_engine.h"
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
ABSL_FLAG(int, cpu, -1, "pin the NIC's thread to this CPU (-1: let the scheduler choose)");

namespace nictune::driver::emulated {
namespace {

std::string Ipv4Text(uint32_t address) {
  return absl::StrFormat("%d.%d.%d.%d", address >> 24, (address >> 16) & 0xff,
                         (address >> 8) & 0xff, address & 0xff);
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
  uint32_t peer = 0;
  int unused_prefix = 0;
  if (absl::Status parsed = ParseIpv4Prefix(absl::GetFlag(FLAGS_peer), peer, unused_prefix);
      !parsed.ok()) {
    return parsed;
  }
  if (!IsPrivateIpv4(peer) || peer == tap_config.address) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--peer ", Ipv4Text(peer), ": must be private and differ from the TAP's address"));
  }
  absl::StatusOr<std::vector<FlowSpec>> flows = ParseFlows(absl::GetFlag(FLAGS_flows));
  if (!flows.ok()) return flows.status();
  const ModerationSettings moderation{.rx_usecs = absl::GetFlag(FLAGS_rx_usecs),
                                      .rx_frames = absl::GetFlag(FLAGS_rx_frames),
                                      .adaptive_rx = absl::GetFlag(FLAGS_adaptive_rx)};
  // Validate everything before creating anything.
  absl::StatusOr<std::unique_ptr<NicEngine>> engine =
      NicEngine::Create(*flows, absl::GetFlag(FLAGS_ring_size), moderation, 0);
  if (!engine.ok()) return engine.status();

  if (const int cpu = absl::GetFlag(FLAGS_cpu); cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(static_cast<size_t>(cpu), &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) {
      return netlink::ErrnoStatus(absl::StrCat("--cpu ", cpu, ": sched_setaffinity"), errno);
    }
  }
  if (const int priority = absl::GetFlag(FLAGS_fifo_priority); priority > 0) {
    // A NIC's interrupt does not wait for the scheduler; neither should the emulated one. The
    // kernel's RT throttling (sched_rt_runtime_us) still leaves the rest of the host its share.
    sched_param param{};
    param.sched_priority = priority;
    if (sched_setscheduler(0, SCHED_FIFO, &param) != 0) {
      return netlink::ErrnoStatus(
          absl::StrCat("--fifo_priority ", priority, ": sched_setscheduler(SCHED_FIFO)"), errno);
    }
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
  const int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd < 0) return netlink::ErrnoStatus("epoll_create1", errno);
  absl::StatusOr<std::unique_ptr<ControlServer>> server =
      ControlServer::Listen(socket_path, epoll_fd);
  if (!server.ok()) {
    close(epoll_fd);
    return server.status();
  }
  // The traffic starts now, not when the flags were checked.
  engine =
      NicEngine::Create(*flows, absl::GetFlag(FLAGS_ring_size), moderation, EmulatedNic::NowNs());
  if (!engine.ok()) return engine.status();
  absl::StatusOr<std::unique_ptr<EmulatedNic>> nic =
      EmulatedNic::Create(epoll_fd, **tap, **server, std::move(*engine), tap_config.address,
                          EmulatedNicOptions{.peer_address = peer,
                                             .duration = absl::GetFlag(FLAGS_duration),
                                             .spin_ns = absl::GetFlag(FLAGS_spin_us) * 1000});
  if (!nic.ok()) {
    close(epoll_fd);
    return nic.status();
  }
  std::cout << "ready netns=" << netns_name << " device=" << tap_config.name
            << " address=" << Ipv4Text(tap_config.address) << " peer=" << Ipv4Text(peer)
            << " control_socket=" << socket_path << std::endl;
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
