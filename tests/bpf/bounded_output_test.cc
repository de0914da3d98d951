// SPDX-License-Identifier: Apache-2.0
// Bounded output under a flood of drops from thousands of ports in several namespaces: the series
// nictuned exports stay within the written budget (agent/metrics/series_budget.h), the drop
// probe's map is pruned and says how full it is, and every drop still counts: the totals by
// reason equal the kernel's own Udp: NoPorts and RcvbufErrors of the namespaces that dropped.
//
// The flood: in each of two pairs of namespaces, a sender sweeps 5,000 closed ports for half the
// flood and 5,000 others for the second half (10,000 keys a pair, 20,000 in all, against a map
// of 8,192), and overflows a socket that is never read. The agent's probes see every namespace;
// on /metrics the test namespaces' devices are "other_namespaces", and drops that found the map
// full are "unattributed". Both count here. The host's own namespace may drop a few packets of
// its own meanwhile, which can only land in "unattributed" when the map is full: the bound above
// allows 0.1% for them, the bound below none.
//
// A second agent watches the same flood with room for one drop series (--metrics_drop_series=1):
// it exports two series of drops at most, and the one it admitted and its overflow series
// together still count every drop of the flood.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "agent/metrics/series_budget.h"
#include "agent/procfs/interrupts.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/snmp.h"
#include "gtest/gtest.h"
#include "tests/support/exposition_samples.h"
#include "tests/support/loopback_http.h"
#include "tests/support/netns_host.h"
#include "tests/support/privileges.h"
#include "tests/support/serving_nictuned.h"

namespace nictune {
namespace {

using testing_support::ExposedSample;
using testing_support::NetworkNamespace;
using testing_support::VethHosts;

constexpr uint16_t kFullSocketPort = 9000;
constexpr int kPortsPerHalf = 5000;
constexpr absl::Duration kFloodHalf = absl::Seconds(3);
constexpr double kPacketsPerSecond = 20000;  // per sender

absl::StatusOr<int64_t> UdpCounter(const NetworkNamespace& netns, const std::string& name) {
  absl::StatusOr<std::string> text = netns.ReadProcNet("snmp");
  if (!text.ok()) return text.status();
  absl::StatusOr<procfs::SnmpCounters> snmp = procfs::ParseSnmp(*text, "snmp in " + netns.name());
  if (!snmp.ok()) return snmp.status();
  const auto udp = snmp->find("Udp");
  if (udp == snmp->end() || !udp->second.contains(name)) {
    return absl::NotFoundError(absl::StrCat("no Udp: ", name, " in ", netns.name()));
  }
  return udp->second.at(name);
}

// A socket bound in `netns` with the smallest buffer and never read: every datagram past the
// first few overflows it. Closed when the test ends.
absl::StatusOr<int> FullSocketIn(const NetworkNamespace& netns) {
  int fd = -1;
  absl::Status ran = netns.RunInside([&fd] {
    fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return;
    const int rcvbuf = 2048;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    sockaddr_in address{.sin_family = AF_INET, .sin_port = htons(kFullSocketPort)};
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
      close(fd);
      fd = -1;
    }
  });
  if (!ran.ok()) return ran;
  if (fd < 0) return absl::InternalError("full socket: socket or bind failed in " + netns.name());
  return fd;
}

// Sends from `hosts.a()` to b: one datagram to the full socket, then one to each of the half's
// closed ports in turn, paced to kPacketsPerSecond, for kFloodHalf each half.
void Flood(const VethHosts& hosts, std::atomic<uint64_t>& sent, absl::Status& status) {
  status = hosts.a().RunInside([&] {
    const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return;
    sockaddr_in to{.sin_family = AF_INET};
    inet_pton(AF_INET, hosts.address_b().c_str(), &to.sin_addr);
    const char payload[32] = {};
    for (int half = 0; half < 2; ++half) {
      const uint16_t first = half == 0 ? 20000 : 30000;
      const absl::Time start = absl::Now();
      uint64_t here = 0;
      for (int i = 0; absl::Now() - start < kFloodHalf; ++i) {
        to.sin_port = htons(static_cast<uint16_t>(i % 2 == 0 ? kFullSocketPort
                                                            : first + (i / 2) % kPortsPerHalf));
        if (sendto(fd, payload, sizeof(payload), 0, reinterpret_cast<sockaddr*>(&to),
                   sizeof(to)) == sizeof(payload)) {
          ++here;
        }
        const absl::Time due = start + absl::Seconds(static_cast<double>(here) / kPacketsPerSecond);
        if (absl::Now() < due) absl::SleepFor(due - absl::Now());
      }
      sent += here;
    }
    close(fd);
  });
}

absl::StatusOr<std::vector<ExposedSample>> Scrape(uint16_t port) {
  absl::StatusOr<testing_support::HttpReply> reply =
      testing_support::HttpGetLoopback(port, "/metrics", absl::Seconds(10));
  if (!reply.ok()) return reply.status();
  if (reply->status != 200) return absl::InternalError(absl::StrCat("/metrics ", reply->status));
  return testing_support::ParseExposedSamples(reply->body, "nictuned /metrics");
}

// nictune_skb_drops_total of `reason` that the test namespaces' drops land in: their devices'
// ("other_namespaces") and those that found the map full ("unattributed").
double DropsOf(const std::vector<ExposedSample>& samples, const std::string& reason) {
  double total = 0;
  for (const ExposedSample& s : samples) {
    if (s.name != "nictune_skb_drops_total" || s.labels.at("reason") != reason) continue;
    const std::string& device = s.labels.at("device");
    if (device == "unattributed" || (device == "other_namespaces" && s.labels.at("proto") == "udp"))
      total += s.value;
  }
  return total;
}

// Every nictune_skb_drops_total series the flood's drops can land in under the drop series cap:
// those DropsOf counts, of both reasons, and the overflow series.
double CappedDropsOf(const std::vector<ExposedSample>& samples) {
  double total = DropsOf(samples, "NO_SOCKET") + DropsOf(samples, "SOCKET_RCVBUFF");
  for (const ExposedSample& s : samples) {
    if (s.name == "nictune_skb_drops_total" && s.labels.at("device") == "overflow") {
      total += s.value;
    }
  }
  return total;
}

size_t SeriesOf(const std::vector<ExposedSample>& samples, const std::string& name) {
  size_t series = 0;
  for (const ExposedSample& s : samples) series += s.name == name;
  return series;
}

double ValueOf(const std::vector<ExposedSample>& samples, const std::string& name,
               const std::map<std::string, std::string>& labels) {
  for (const ExposedSample& s : samples) {
    if (s.name == name && s.labels == labels) return s.value;
  }
  return -1;
}

// CPUs, fired irqs, own devices and their NAPI instances from the host (at most one a queue, rx
// and tx apart as virtio has them, and the backlog); the drop reasons seen are kernel objects the
// exposition names, whatever their packets' ports.
absl::StatusOr<metrics::HostShape> ShapeOfThisHost(const std::vector<ExposedSample>& samples) {
  metrics::HostShape shape{.cpus = static_cast<size_t>(sysconf(_SC_NPROCESSORS_CONF))};
  absl::StatusOr<std::string> text = procfs::ReadFile("/proc/interrupts");
  if (!text.ok()) return text.status();
  absl::StatusOr<procfs::InterruptTable> interrupts = procfs::ParseInterrupts(*text);
  if (!interrupts.ok()) return interrupts.status();
  for (const procfs::InterruptLine& line : interrupts->lines) {
    if (line.irq && line.total > 0) ++shape.irqs;
  }
  shape.napis = 1;  // the backlog
  for (const auto& device : std::filesystem::directory_iterator("/sys/class/net")) {
    ++shape.devices;
    std::error_code error;
    std::filesystem::directory_iterator queues(device.path() / "queues", error);
    if (!error) {
      shape.napis +=
          static_cast<size_t>(std::distance(queues, std::filesystem::directory_iterator()));
    }
  }
  std::set<std::string> reasons;
  for (const ExposedSample& s : samples) {
    if (s.name == "nictune_skb_drops_total") reasons.insert(s.labels.at("reason"));
  }
  shape.drop_reasons = reasons.size();
  return shape;
}

TEST(BoundedOutput, DropsFromTwentyThousandPortsInFourNamespacesStayWithinTheBudgetAndAllCount) {
  if (auto why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  std::vector<std::unique_ptr<VethHosts>> pairs;
  std::vector<int> full_sockets;
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<std::unique_ptr<VethHosts>> hosts = VethHosts::Create({.napi_on_b = false});
    ASSERT_TRUE(hosts.ok()) << hosts.status();
    absl::StatusOr<int> fd = FullSocketIn((*hosts)->b());
    ASSERT_TRUE(fd.ok()) << fd.status();
    full_sockets.push_back(*fd);
    pairs.push_back(*std::move(hosts));
  }
  // The probes whole (no budget): this test is about the map, not about sampling.
  const std::vector<std::string> flags = {"--mode=observe", "--interval=1s", "--window=2s",
                                          "--probe_budget=unlimited"};
  auto agent = testing_support::StartLoopbackAgent("nictune_bounded_output_", flags,
                                                   testing_support::NictunedReady::kFirstSample);
  ASSERT_TRUE(agent.ok()) << agent.status();
  std::vector<std::string> capped_flags = flags;
  capped_flags.push_back("--metrics_drop_series=1");
  auto capped = testing_support::StartLoopbackAgent("nictune_bounded_output_capped_", capped_flags,
                                                    testing_support::NictunedReady::kFirstSample);
  ASSERT_TRUE(capped.ok()) << capped.status();
  const uint16_t port = agent->port;
  const uint16_t capped_port = capped->port;
  auto snapshot = testing_support::NextSnapshot(port, 0, absl::Seconds(10));
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  auto capped_snapshot = testing_support::NextSnapshot(capped_port, 0, absl::Seconds(10));
  ASSERT_TRUE(capped_snapshot.ok()) << capped_snapshot.status();

  const auto kernel_totals = [&pairs]() -> absl::StatusOr<std::pair<int64_t, int64_t>> {
    std::pair<int64_t, int64_t> totals{0, 0};
    for (const auto& hosts : pairs) {
      absl::StatusOr<int64_t> no_ports = UdpCounter(hosts->b(), "NoPorts");
      absl::StatusOr<int64_t> rcvbuf = UdpCounter(hosts->b(), "RcvbufErrors");
      if (!no_ports.ok()) return no_ports.status();
      if (!rcvbuf.ok()) return rcvbuf.status();
      totals.first += *no_ports;
      totals.second += *rcvbuf;
    }
    return totals;
  };
  absl::StatusOr<std::pair<int64_t, int64_t>> kernel_before = kernel_totals();
  ASSERT_TRUE(kernel_before.ok()) << kernel_before.status();
  absl::StatusOr<std::vector<ExposedSample>> before = Scrape(port);
  ASSERT_TRUE(before.ok()) << before.status();
  absl::StatusOr<std::vector<ExposedSample>> capped_before = Scrape(capped_port);
  ASSERT_TRUE(capped_before.ok()) << capped_before.status();

  std::atomic<uint64_t> sent{0};
  std::vector<absl::Status> statuses(pairs.size());
  std::vector<std::thread> senders;
  for (size_t i = 0; i < pairs.size(); ++i) {
    senders.emplace_back([&, i] { Flood(*pairs[i], sent, statuses[i]); });
  }
  for (std::thread& sender : senders) sender.join();
  for (const absl::Status& status : statuses) ASSERT_TRUE(status.ok()) << status;
  absl::StatusOr<std::pair<int64_t, int64_t>> kernel_after = kernel_totals();
  ASSERT_TRUE(kernel_after.ok()) << kernel_after.status();
  // Two whole intervals after the flood, so that the agent's last window holds all of it.
  snapshot = testing_support::SnapshotAfterIntervals(port, {}, 3, absl::Seconds(10));
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  absl::StatusOr<std::vector<ExposedSample>> after = Scrape(port);
  ASSERT_TRUE(after.ok()) << after.status();
  capped_snapshot =
      testing_support::SnapshotAfterIntervals(capped_port, *capped_snapshot, 3, absl::Seconds(10));
  ASSERT_TRUE(capped_snapshot.ok()) << capped_snapshot.status();
  absl::StatusOr<std::vector<ExposedSample>> capped_after = Scrape(capped_port);
  ASSERT_TRUE(capped_after.ok()) << capped_after.status();

  const double no_ports = static_cast<double>(kernel_after->first - kernel_before->first);
  const double rcvbuf = static_cast<double>(kernel_after->second - kernel_before->second);
  const double no_socket = DropsOf(*after, "NO_SOCKET") - DropsOf(*before, "NO_SOCKET");
  const double rcvbuff = DropsOf(*after, "SOCKET_RCVBUFF") - DropsOf(*before, "SOCKET_RCVBUFF");
  const std::map<std::string, std::string> drop_map = {{"map", "drop_counts"}};
  const double pruned = ValueOf(*after, "nictune_bpf_map_pruned_keys_total", drop_map);
  const double no_room = ValueOf(*after, "nictune_bpf_map_no_room_total", drop_map);
  std::cout << "sent " << sent << ": Udp NoPorts " << no_ports << ", NO_SOCKET on /metrics "
            << no_socket << "; RcvbufErrors " << rcvbuf << ", SOCKET_RCVBUFF " << rcvbuff
            << "; keys pruned " << pruned << ", drops that found the map full " << no_room
            << "; " << after->size() << " samples\n";

  ASSERT_GT(no_ports, 2 * kPortsPerHalf) << "the flood did not reach every port";
  ASSERT_GT(rcvbuf, 1000);
  EXPECT_GE(no_socket, no_ports);
  EXPECT_LE(no_socket, no_ports * 1.001);
  EXPECT_GE(rcvbuff, rcvbuf);
  EXPECT_LE(rcvbuff, rcvbuf * 1.001);
  // 20,000 keys through a map of 8,192: the first half's keys were pruned to make room.
  EXPECT_GE(pruned, 2 * kPortsPerHalf);
  EXPECT_EQ(ValueOf(*after, "nictune_bpf_map_capacity_entries", drop_map), 8192);
  const double entries = ValueOf(*after, "nictune_bpf_map_entries", drop_map);
  EXPECT_GE(entries, 0);
  EXPECT_LE(entries, 8192);

  // Within the budget for this host's shape, which no port or namespace enters.
  absl::StatusOr<metrics::HostShape> shape = ShapeOfThisHost(*after);
  ASSERT_TRUE(shape.ok()) << shape.status();
  const metrics::SeriesBudget budget = metrics::BudgetFor(*shape, metrics::SeriesOptions{});
  std::map<std::string, size_t> per_family;
  for (const ExposedSample& s : *after) ++per_family[s.name];
  for (const auto& [family, series] : per_family) {
    EXPECT_LE(series, budget.Of(family)) << family;
  }
  EXPECT_LE(after->size(), budget.total);

  // The capped agent: one admitted set and the overflow series, and every drop in them.
  const double capped_drops = CappedDropsOf(*capped_after) - CappedDropsOf(*capped_before);
  std::cout << "--metrics_drop_series=1: " << capped_drops << " drops in "
            << SeriesOf(*capped_after, "nictune_skb_drops_total") << " series\n";
  EXPECT_LE(SeriesOf(*capped_after, "nictune_skb_drops_total"), 2u);
  EXPECT_GE(capped_drops, no_ports + rcvbuf);
  EXPECT_LE(capped_drops, (no_ports + rcvbuf) * 1.001);
  for (int fd : full_sockets) close(fd);
}

}  // namespace
}  // namespace nictune
