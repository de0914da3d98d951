// SPDX-License-Identifier: Apache-2.0
// Each other network namespace's protocol counters, as the socket census read them from inside
// it: the snapshot keeps its Udp section (net/snmp) and its TcpExt section (net/netstat), a file
// that was not read or does not parse adds nothing, and the window gives their rates by namespace.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/collect/snapshot_collector.h"
#include "agent/model/window.h"
#include "driver/socket_memory.h"
#include "gtest/gtest.h"
#include "tests/support/synthetic_host.h"

namespace nictune::collect {
namespace {

constexpr uint32_t kPod = 4026532300;
constexpr uint32_t kDamaged = 4026532301;

std::string Snmp(int64_t rcvbuf_errors) {
  return absl::StrCat(
      "Ip: Forwarding DefaultTTL\nIp: 1 64\n"
      "Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors\n"
      "Udp: 10 0 ",
      rcvbuf_errors, " 0 ", rcvbuf_errors, " 0\n");
}

std::string Netstat(int64_t rcvq_drops) {
  return absl::StrCat("TcpExt: SyncookiesSent TCPRcvQDrop TCPBacklogDrop\nTcpExt: 0 ", rcvq_drops,
                      " 3\nIpExt: InNoRoutes InOctets\nIpExt: 0 1000\n");
}

class FakeCensus final : public driver::SocketCensusSource {
 public:
  absl::StatusOr<driver::SocketCensus> Read() override {
    driver::SocketCensus census{.namespaces = 3};
    census.counters = {
        {.netns_inode = kPod, .snmp = Snmp(errors), .netstat = Netstat(rcvq_drops)},
        // A netstat that does not parse (a header line without its values) keeps its snmp.
        {.netns_inode = kDamaged, .snmp = Snmp(0), .netstat = "TcpExt: TCPRcvQDrop\n"}};
    return census;
  }
  int64_t errors = 0;
  int64_t rcvq_drops = 0;
};

TEST(NamespaceCountersTest, EachNamespaceKeepsItsUdpAndTcpExtCountersAndTheWindowTheirRates) {
  absl::StatusOr<testing_support::SyntheticHost> host =
      testing_support::SyntheticHost::Create({.device = "syn0", .ifindex = 2});
  ASSERT_TRUE(host.ok()) << host.status();
  FakeCensus census;
  uint64_t now_ns = 1'000'000'000;
  SnapshotCollector collector({.proc = host->proc_root(), .sys = host->sys_root()}, nullptr,
                              "unit test: no probes", &census, nullptr,
                              {.monotonic_ns = [&] { return now_ns; },
                               .unix_ns = [&] { return static_cast<int64_t>(now_ns); }});
  const model::Snapshot before = collector.Collect();
  ASSERT_EQ(before.netns_protocols.count(kPod), 1u);
  const procfs::SnmpCounters& pod = before.netns_protocols.at(kPod);
  EXPECT_EQ(pod.count("Udp"), 1u);
  EXPECT_EQ(pod.count("TcpExt"), 1u);
  EXPECT_EQ(pod.count("Ip"), 0u);  // the sections the agent has no use for are not kept
  EXPECT_EQ(pod.count("IpExt"), 0u);
  ASSERT_EQ(before.netns_protocols.count(kDamaged), 1u);
  EXPECT_EQ(before.netns_protocols.at(kDamaged).count("Udp"), 1u);
  EXPECT_EQ(before.netns_protocols.at(kDamaged).count("TcpExt"), 0u);

  census.errors = 40;
  census.rcvq_drops = 90;
  now_ns += 2'000'000'000;
  const model::Snapshot after = collector.Collect();
  absl::StatusOr<model::Window> window = model::ComputeWindow(before, after);
  ASSERT_TRUE(window.ok()) << window.status();
  ASSERT_EQ(window->netns_protocol_per_s.count(kPod), 1u);
  const std::map<std::string, double>& rates = window->netns_protocol_per_s.at(kPod);
  EXPECT_DOUBLE_EQ(rates.at("Udp.RcvbufErrors"), 20);
  EXPECT_DOUBLE_EQ(rates.at("TcpExt.TCPRcvQDrop"), 45);
  EXPECT_EQ(rates.count("TcpExt.TCPBacklogDrop"), 0u);  // did not move
}

}  // namespace
}  // namespace nictune::collect
