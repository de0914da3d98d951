// SPDX-License-Identifier: Apache-2.0
// The kernel's own per-socket counters, read through sock_diag in every network namespace, equal
// what the socket itself reports (SO_MEMINFO): its queued bytes, its buffer and its drops. They
// hold for a socket that filled and was never read before the agent started, and a window of
// nictuned counts exactly the drops the socket took within it.
#include <sys/socket.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "agent/procfs/snmp.h"
#include "driver/network_namespaces.h"
#include "driver/socket_memory.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/build_paths.h"
#include "tests/support/netns_host.h"
#include "tests/support/privileges.h"
#include "tests/support/subprocess.h"
#include "tests/support/udp_receiver.h"
#include "tests/support/udp_sender.h"

namespace nictune {
namespace {

using testing_support::QueuedMemory;
using testing_support::UdpReceiver;
using testing_support::UdpSender;
using testing_support::VethHosts;
using testing_support::WhyNotPrivileged;

const std::string kNictuned = testing_support::BinaryDir() + "/agent/nictuned";

// A receiver in b that never reads, with a buffer a few hundred datagrams fill.
absl::StatusOr<std::unique_ptr<UdpReceiver>> NeverReadReceiver(const VethHosts& hosts) {
  absl::StatusOr<std::unique_ptr<UdpReceiver>> receiver =
      absl::InternalError("receiver not created");
  absl::Status inside = hosts.b().RunInside([&] {
    receiver = UdpReceiver::Create({.bind_address = hosts.address_b(), .rcvbuf_bytes = 16384});
  });
  if (!inside.ok()) return inside;
  return receiver;
}

// `count` datagrams from a to the receiver, all the kernel accepts.
absl::Status Send(const VethHosts& hosts, uint16_t port, uint64_t count) {
  absl::StatusOr<testing_support::UdpSenderReport> report = absl::InternalError("not sent");
  absl::Status inside = hosts.a().RunInside([&] {
    absl::StatusOr<std::unique_ptr<UdpSender>> sender = UdpSender::Create(
        {.destination = hosts.address_b(), .port = port, .packets = count, .payload_bytes = 64});
    if (!sender.ok()) {
      report = sender.status();
      return;
    }
    report = (*sender)->Run();
  });
  if (!inside.ok()) return inside;
  if (!report.ok()) return report.status();
  absl::SleepFor(absl::Milliseconds(50));  // the last datagrams are received in softirq context
  return absl::OkStatus();
}

const driver::SocketMemory* Find(const driver::SocketCensus& census, uint64_t cookie) {
  for (const driver::SocketMemory& s : census.sockets) {
    if (s.cookie == cookie) return &s;
  }
  return nullptr;
}

const driver::NamespaceCountersText* FindCounters(const driver::SocketCensus& census,
                                                  uint32_t netns) {
  for (const driver::NamespaceCountersText& counters : census.counters) {
    if (counters.netns_inode == netns) return &counters;
  }
  return nullptr;
}

// A section of a counters file ("TcpExt" of netstat), parsed; empty when it has none.
std::map<std::string, int64_t> Section(const std::string& text, const std::string& section) {
  absl::StatusOr<procfs::SnmpCounters> counters = procfs::ParseSnmp(text, "net counters");
  if (!counters.ok()) return {};
  const auto found = counters->find(section);
  if (found == counters->end()) return {};
  return std::map<std::string, int64_t>(found->second.begin(), found->second.end());
}

// Udp.RcvbufErrors of a /proc/net/snmp text; -1 when it does not parse or lacks the counter.
int64_t UdpRcvbufErrors(const std::string& text) {
  absl::StatusOr<procfs::SnmpCounters> counters = procfs::ParseSnmp(text, "net/snmp");
  if (!counters.ok()) return -1;
  const auto udp = counters->find("Udp");
  if (udp == counters->end()) return -1;
  const auto errors = udp->second.find("RcvbufErrors");
  return errors == udp->second.end() ? -1 : errors->second;
}

// A receiver in b that never reads, flooded with 2000 datagrams from a: its hosts, the socket, what
// SO_MEMINFO says of it after, and b's namespace inode. The receiver goes before its hosts.
struct FloodedSocket {
  std::unique_ptr<VethHosts> hosts;
  std::unique_ptr<UdpReceiver> receiver;
  QueuedMemory memory;
  uint32_t netns_inode = 0;
};

absl::StatusOr<FloodedSocket> FloodNeverReadSocket() {
  FloodedSocket out;
  absl::StatusOr<std::unique_ptr<VethHosts>> hosts = VethHosts::Create({});
  if (!hosts.ok()) return hosts.status();
  out.hosts = *std::move(hosts);
  absl::StatusOr<std::unique_ptr<UdpReceiver>> receiver = NeverReadReceiver(*out.hosts);
  if (!receiver.ok()) return receiver.status();
  out.receiver = *std::move(receiver);
  if (absl::Status sent = Send(*out.hosts, out.receiver->port(), 2000); !sent.ok()) return sent;
  absl::StatusOr<QueuedMemory> memory = out.receiver->ReadMemory();
  if (!memory.ok()) return memory.status();
  out.memory = *memory;
  absl::StatusOr<uint32_t> inode =
      driver::NetworkNamespaceInode("/run/netns/" + out.hosts->b().name());
  if (!inode.ok()) return inode.status();
  out.netns_inode = *inode;
  return out;
}

TEST(SocketCensus, EveryNamespacesSocketsMatchTheirOwnMemInfo) {
  if (auto why = WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  absl::StatusOr<FloodedSocket> flooded = FloodNeverReadSocket();
  ASSERT_TRUE(flooded.ok()) << flooded.status();
  const std::unique_ptr<UdpReceiver>& receiver = flooded->receiver;
  const QueuedMemory& memory = flooded->memory;
  const uint32_t inode = flooded->netns_inode;

  // Opened after the socket filled, from the test's own (host) namespace.
  std::unique_ptr<driver::SocketCensusSource> census = driver::OpenSockDiagCensus({}, "/proc");
  absl::StatusOr<driver::SocketCensus> read = census->Read();
  ASSERT_TRUE(read.ok()) << read.status();
  const driver::SocketMemory* socket = Find(*read, receiver->socket_cookie());
  ASSERT_NE(socket, nullptr) << read->sockets.size() << " sockets kept of " << read->sockets_seen
                             << " in " << read->namespaces << " namespaces";
  ASSERT_GT(memory.drops, 1000u) << "the datagrams did not overflow the socket";
  EXPECT_EQ(socket->rmem_alloc, memory.rmem_alloc);
  EXPECT_EQ(socket->rcvbuf, memory.rcvbuf);
  EXPECT_EQ(socket->drops, memory.drops);
  EXPECT_EQ(socket->local_port, receiver->port());
  EXPECT_EQ(socket->netns_inode, inode);
  EXPECT_EQ(socket->family, AF_INET);

  // The namespace's own protocol counters, read by the census from inside it, are those a thread
  // in it reads (nothing was sent in between), and count at least this socket's drops; its
  // TcpExt counters (no TCP in it) are the same too.
  absl::StatusOr<std::string> inside = flooded->hosts->b().ReadProcNet("snmp");
  ASSERT_TRUE(inside.ok()) << inside.status();
  absl::StatusOr<std::string> inside_netstat = flooded->hosts->b().ReadProcNet("netstat");
  ASSERT_TRUE(inside_netstat.ok()) << inside_netstat.status();
  const driver::NamespaceCountersText* counters = FindCounters(*read, inode);
  ASSERT_NE(counters, nullptr) << read->counters.size() << " namespaces' counters read";
  EXPECT_EQ(UdpRcvbufErrors(counters->snmp), UdpRcvbufErrors(*inside));
  EXPECT_GE(UdpRcvbufErrors(counters->snmp), static_cast<int64_t>(memory.drops));
  const std::map<std::string, int64_t> tcp_ext = Section(counters->netstat, "TcpExt");
  EXPECT_GT(tcp_ext.size(), 50u) << counters->netstat;
  EXPECT_EQ(tcp_ext, Section(*inside_netstat, "TcpExt"));
}

// A lister that fails everywhere, as sock_diag does on a kernel without udp_diag.
class RefusingLister : public driver::UdpSocketLister {
 public:
  std::string_view name() const override { return "refusing"; }
  absl::Status List(uint32_t, absl::FunctionRef<void(const driver::SocketMemory&)>) override {
    return absl::UnavailableError("refused (errno 93)");
  }
};

TEST(SocketCensus, WhereTheFirstListerFailsProcNetUdpGivesTheSocketsQueueAndDrops) {
  if (auto why = WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  absl::StatusOr<FloodedSocket> flooded = FloodNeverReadSocket();
  ASSERT_TRUE(flooded.ok()) << flooded.status();
  const std::unique_ptr<UdpReceiver>& receiver = flooded->receiver;
  const QueuedMemory& memory = flooded->memory;
  const uint32_t inode = flooded->netns_inode;
  ASSERT_GT(memory.drops, 1000u) << "the datagrams did not overflow the socket";

  std::vector<std::unique_ptr<driver::UdpSocketLister>> listers;
  listers.push_back(std::make_unique<RefusingLister>());
  listers.push_back(driver::ProcNetUdpLister());
  std::unique_ptr<driver::SocketCensusSource> census =
      driver::OpenSocketCensus({}, "/proc", std::move(listers));
  absl::StatusOr<driver::SocketCensus> read = census->Read();
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->namespaces_by_fallback, read->namespaces);
  EXPECT_EQ(read->fallback_note, "/proc/net/udp where refusing failed: refused (errno 93)");
  const driver::SocketMemory* socket = nullptr;
  for (const driver::SocketMemory& s : read->sockets) {
    if (s.netns_inode == inode && s.local_port == receiver->port()) socket = &s;
  }
  ASSERT_NE(socket, nullptr) << read->sockets.size() << " sockets kept of " << read->sockets_seen;
  // Never read, the socket owes no forward deficit: rx_queue is rmem_alloc exactly.
  EXPECT_EQ(socket->rmem_alloc, memory.rmem_alloc);
  EXPECT_EQ(socket->drops, memory.drops);
  EXPECT_EQ(socket->rcvbuf, 0u);
  EXPECT_EQ(socket->family, AF_INET);
  EXPECT_NE(socket->cookie, receiver->socket_cookie());  // the file has no cookie

  // The namespace's own counters come with the fallback too.
  EXPECT_NE(FindCounters(*read, inode), nullptr);
}

const nlohmann::json* SocketRow(const nlohmann::json& window, uint64_t cookie) {
  for (const nlohmann::json& row : window["sockets"]) {
    if (row["cookie"].get<uint64_t>() == cookie) return &row;
  }
  return nullptr;
}

TEST(SocketCensus, AWindowOfNictunedCountsTheSocketsDropsAndFillExactly) {
  if (auto why = WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  absl::StatusOr<std::unique_ptr<VethHosts>> hosts = VethHosts::Create({});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  absl::StatusOr<std::unique_ptr<UdpReceiver>> receiver = NeverReadReceiver(**hosts);
  ASSERT_TRUE(receiver.ok()) << receiver.status();
  // Filled before the agent starts: no packet event of this socket is ever seen by it.
  ASSERT_TRUE(Send(**hosts, (*receiver)->port(), 2000).ok());
  absl::StatusOr<QueuedMemory> at_start = (*receiver)->ReadMemory();
  ASSERT_TRUE(at_start.ok()) << at_start.status();

  absl::StatusOr<uint32_t> inode =
      driver::NetworkNamespaceInode("/run/netns/" + (*hosts)->b().name());
  ASSERT_TRUE(inode.ok()) << inode.status();
  absl::StatusOr<std::string> snmp_at_start = (*hosts)->b().ReadProcNet("snmp");
  ASSERT_TRUE(snmp_at_start.ok()) << snmp_at_start.status();

  absl::StatusOr<testing_support::BackgroundProgram> agent =
      testing_support::BackgroundProgram::Start(
          {kNictuned, "--once", "--json", "--interval=3s"});
  ASSERT_TRUE(agent.ok()) << agent.status();
  // Well inside the window (its first snapshot is taken within a second of the start).
  absl::SleepFor(absl::Milliseconds(1500));
  ASSERT_TRUE(Send(**hosts, (*receiver)->port(), 3000).ok());
  absl::StatusOr<QueuedMemory> at_end = (*receiver)->ReadMemory();
  ASSERT_TRUE(at_end.ok()) << at_end.status();
  absl::StatusOr<std::string> snmp_at_end = (*hosts)->b().ReadProcNet("snmp");
  ASSERT_TRUE(snmp_at_end.ok()) << snmp_at_end.status();
  absl::StatusOr<testing_support::ProgramOutput> out = agent->Wait(absl::Seconds(20));
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->exit_code, 0) << out->err;
  const nlohmann::json window = nlohmann::json::parse(out->out, nullptr, false);
  ASSERT_FALSE(window.is_discarded()) << out->out;

  const nlohmann::json* row = SocketRow(window, (*receiver)->socket_cookie());
  ASSERT_NE(row, nullptr) << window["sockets"].dump();
  ASSERT_GT(at_end->drops - at_start->drops, 1000u) << "the second burst did not drop";
  EXPECT_EQ((*row)["kernel_drops"].get<uint64_t>(), at_end->drops - at_start->drops) << *row;
  EXPECT_EQ((*row)["rcvbuf"].get<uint32_t>(), at_end->rcvbuf) << *row;
  EXPECT_EQ((*row)["rmem_alloc"].get<uint32_t>(), at_end->rmem_alloc) << *row;
  EXPECT_DOUBLE_EQ((*row)["fill"].get<double>(),
                   static_cast<double>(at_end->rmem_alloc) / static_cast<double>(at_end->rcvbuf));
  EXPECT_GT((*row)["peak_fill"].get<double>(), 0.8) << *row;
  EXPECT_NE((*row)["source"].get<std::string>().find("sock_diag"), std::string::npos) << *row;

  // The namespace's Udp.RcvbufErrors over the window is the kernel's own count of its drops:
  // the window holds the whole second burst and nothing else is sent into the namespace.
  const int64_t errors = UdpRcvbufErrors(*snmp_at_end) - UdpRcvbufErrors(*snmp_at_start);
  ASSERT_EQ(errors, static_cast<int64_t>(at_end->drops - at_start->drops));
  const nlohmann::json& by_netns = window["protocol_per_s"]["by_netns"];
  const std::string key = std::to_string(*inode);
  ASSERT_TRUE(by_netns.contains(key)) << by_netns.dump();
  EXPECT_NEAR(by_netns[key]["Udp.RcvbufErrors"].get<double>() * window["seconds"].get<double>(),
              static_cast<double>(errors), 0.5)
      << by_netns.dump();
  // The probes' SOCKET_RCVBUFF drops of the namespace add up to the same count: scaled to it
  // where the probes saw part of the window, each row rounded to a whole drop.
  double drops = 0;
  size_t rows = 0;
  for (const nlohmann::json& drop : window["drops"]) {
    if (drop["reason_name"] != "SOCKET_RCVBUFF" || drop["netns_inode"] != *inode) continue;
    drops += drop["count"].get<double>();
    ++rows;
  }
  EXPECT_NEAR(drops, static_cast<double>(errors), static_cast<double>(rows)) << window["drops"];
}

}  // namespace
}  // namespace nictune
