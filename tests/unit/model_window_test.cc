// SPDX-License-Identifier: Apache-2.0
#include "agent/model/window.h"
#include "agent/model/window_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace nictune::model {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr uint64_t kSecond = 1'000'000'000;

Snapshot At(uint64_t seconds) {
  Snapshot s;
  s.monotonic_ns = seconds * kSecond;
  s.unix_ns = static_cast<int64_t>(seconds * kSecond);
  return s;
}

const CpuWindow& Cpu(const Window& w, int cpu) {
  for (const auto& c : w.cpus) {
    if (c.cpu == cpu) return c;
  }
  ADD_FAILURE() << "no cpu " << cpu;
  static CpuWindow none;
  return none;
}

TEST(ComputeWindowTest, RejectsSnapshotsOutOfOrder) {
  const auto w = ComputeWindow(At(5), At(5));
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.status().message(), HasSubstr("is not after"));
}

TEST(ComputeWindowTest, SoftnetCountersWrapAtTwoToThe32) {
  Snapshot a = At(10), b = At(12);
  a.softnet = {{procfs::SoftnetRow{.cpu = 1, .processed = 0xFFFFFFF0u, .time_squeeze = 7}}};
  b.softnet = {
      {procfs::SoftnetRow{.cpu = 1, .processed = 0x10u, .time_squeeze = 11, .backlog_len = 3}}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_DOUBLE_EQ(w->seconds, 2.0);
  const CpuWindow& c = Cpu(*w, 1);
  EXPECT_DOUBLE_EQ(*c.softnet_processed_per_s, 16.0);  // 0x20 packets over 2 s
  EXPECT_DOUBLE_EQ(*c.time_squeeze_per_s, 2.0);
  EXPECT_EQ(*c.backlog_len, 3u);
}

TEST(ComputeWindowTest, CpuSplitIsShareOfElapsedTicks) {
  Snapshot a = At(0), b = At(1);
  a.stat = procfs::ProcStat{.cpus = {{.cpu = 0, .user = 100, .idle = 0}}};
  b.stat = procfs::ProcStat{.cpus = {{.cpu = 0,
                                      .user = 200,
                                      .system = 50,
                                      .idle = 780,
                                      .iowait = 20,
                                      .irq = 10,
                                      .softirq = 40}}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  const auto& split = *Cpu(*w, 0).split;
  EXPECT_DOUBLE_EQ(split.user, 0.1);
  EXPECT_DOUBLE_EQ(split.system, 0.05);
  EXPECT_DOUBLE_EQ(split.hardirq, 0.01);
  EXPECT_DOUBLE_EQ(split.softirq, 0.04);
  EXPECT_DOUBLE_EQ(split.idle, 0.8);
}

TEST(ComputeWindowTest, IrqCountsMatchCpusByIdWhenACpuComesOnline) {
  Snapshot a = At(0), b = At(1);
  a.interrupts = procfs::InterruptTable{
      .cpu_count = 2, .cpu_ids = {0, 2}, .lines = {{.id = "41", .irq = 41, .per_cpu = {100, 500}}}};
  b.interrupts = procfs::InterruptTable{
      .cpu_count = 3,
      .cpu_ids = {0, 1, 2},
      .lines = {{.id = "41", .irq = 41, .per_cpu = {150, 9, 800}, .actions = "virtio3-rx"},
                {.id = "LOC", .per_cpu = {1, 2, 3}}}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->irqs.size(), 1u);  // symbolic rows are not irqs; cpu 1 has no baseline
  const IrqWindow& irq = w->irqs[0];
  EXPECT_EQ(irq.irq, 41u);
  EXPECT_EQ(irq.actions, "virtio3-rx");
  EXPECT_EQ(irq.count, 350u);
  EXPECT_THAT(irq.per_cpu_per_s, ElementsAre(std::pair(0, 50.0), std::pair(2, 300.0)));
}

TEST(ComputeWindowTest, DeviceCounterThatDecreasesRestartedFromZero) {
  Snapshot a = At(0), b = At(2);
  a.devices = std::vector<procfs::NetDevice>{
      {.name = "veth0", .ifindex = 7, .statistics = {{"rx_packets", 1000}, {"rx_bytes", 5000}}}};
  b.devices = std::vector<procfs::NetDevice>{
      {.name = "veth0", .ifindex = 7, .statistics = {{"rx_packets", 10}, {"rx_bytes", 9000}}}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->devices.size(), 1u);
  EXPECT_DOUBLE_EQ(w->devices[0].per_s.at("rx_packets"), 5.0);
  EXPECT_DOUBLE_EQ(w->devices[0].per_s.at("rx_bytes"), 2000.0);
}

TEST(ComputeWindowTest, ProtocolRatesSkipGaugesAndIdleCounters) {
  Snapshot a = At(0), b = At(4);
  a.snmp = procfs::SnmpCounters{{"Udp", {{"RcvbufErrors", 100}, {"InDatagrams", 7}}},
                                {"Tcp", {{"CurrEstab", 3}}}};
  b.snmp = procfs::SnmpCounters{{"Udp", {{"RcvbufErrors", 140}, {"InDatagrams", 7}}},
                                {"Tcp", {{"CurrEstab", 9}}}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_THAT(w->protocol_per_s, ElementsAre(std::pair(std::string("Udp.RcvbufErrors"), 10.0)));
}

TEST(ComputeWindowTest, NapiPollFiguresFromBpfCounters) {
  Snapshot a = At(0), b = At(2);
  driver::NapiCounter n0{.napi_id = 8193,
                         .ifindex = 3,
                         .device = "eth0",
                         .polls = 100,
                         .work = 6400,
                         .budget_exhausted = 10,
                         .last_budget = 64};
  n0.work_histogram.assign(driver::kNapiWorkBuckets, 0);
  n0.work_histogram[64] = 10;
  driver::NapiCounter n1 = n0;
  n1.polls = 300;
  n1.work = 12800;
  n1.budget_exhausted = 60;
  n1.tx_completions = 1600;
  n1.work_histogram[64] = 60;
  n1.work_histogram[1] = 150;
  a.bpf = driver::BpfCounters{.napis = {n0}};
  b.bpf = driver::BpfCounters{.napis = {n1}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->napis.size(), 1u);
  const NapiWindow& n = w->napis[0];
  EXPECT_EQ(n.polls, 200u);
  EXPECT_DOUBLE_EQ(n.polls_per_s, 100.0);
  EXPECT_DOUBLE_EQ(n.packets_per_poll, 32.0);
  EXPECT_DOUBLE_EQ(n.budget_exhausted_fraction, 0.25);
  EXPECT_DOUBLE_EQ(n.rx_share, 0.8);  // 6400 rx / (6400 rx + 1600 tx completions)
  EXPECT_EQ(n.work_histogram[64], 50u);
  EXPECT_EQ(n.work_histogram[1], 150u);
}

TEST(ComputeWindowTest, NapisWithoutIdsOfOneDeviceAreToldApartByTheirThreads) {
  // A multi-queue TAP: napi id 0 on one ifindex, a poller thread per queue.
  Snapshot a = At(0), b = At(1);
  driver::NapiCounter queue0{
      .ifindex = 7, .thread_pid = 501, .device = "tap0", .polls = 10, .work = 100};
  driver::NapiCounter queue1 = queue0;
  queue1.thread_pid = 502;
  queue1.polls = 20;
  a.bpf = driver::BpfCounters{.napis = {queue0, queue1}};
  queue0.polls = 40;
  queue0.work = 400;
  queue1.polls = 30;
  queue1.work = 300;
  b.bpf = driver::BpfCounters{.napis = {queue1, queue0}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->napis.size(), 2u);
  EXPECT_EQ(w->napis[0].thread_pid, 502u);
  EXPECT_EQ(w->napis[0].polls, 10u);
  EXPECT_DOUBLE_EQ(w->napis[0].packets_per_poll, 20.0);
  EXPECT_EQ(w->napis[1].thread_pid, 501u);
  EXPECT_EQ(w->napis[1].polls, 30u);
  EXPECT_DOUBLE_EQ(w->napis[1].packets_per_poll, 10.0);
}

// A poller's time on a CPU over the window from its schedstat at both ends; one read at only one
// end, or whose pid another task took (another device, or less time than before), is left out.
TEST(ComputeWindowTest, NapiPollersShareOfACpuFromTheirRunTime) {
  Snapshot before = At(10);
  Snapshot after = At(12);
  const auto poller = [](uint32_t pid, const char* device, uint64_t run_ns) {
    return NapiPollerTime{.poller = {.pid = pid, .device = device, .queue = 0}, .run_ns = run_ns};
  };
  before.napi_pollers = {poller(700, "eth0", 1 * kSecond), poller(701, "eth0", 0),
                         poller(702, "eth0", 5 * kSecond), poller(703, "eth1", 0)};
  after.napi_pollers = {poller(700, "eth0", kSecond + kSecond / 2), poller(702, "eth0", 1000),
                        poller(703, "eth2", kSecond), poller(704, "eth0", kSecond)};
  absl::StatusOr<Window> w = ComputeWindow(before, after);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->napi_pollers.size(), 1u);
  EXPECT_EQ(w->napi_pollers[0].poller.pid, 700u);
  EXPECT_DOUBLE_EQ(w->napi_pollers[0].cpu_share, 0.25);  // 0.5 s in 2 s
  const nlohmann::json j = WindowToJson(*w);
  EXPECT_EQ(j["napi_pollers"][0]["pid"], 700);
  EXPECT_EQ(j["napi_pollers"][0]["device"], "eth0");
  EXPECT_EQ(j["napi_pollers"][0]["queue"], 0);
  EXPECT_DOUBLE_EQ(j["napi_pollers"][0]["cpu_share"].get<double>(), 0.25);
}

TEST(ComputeWindowTest, HardirqAndSoftirqTimeSharesPerCpu) {
  Snapshot a = At(0), b = At(1);
  a.bpf = driver::BpfCounters{.irqs = {{.irq = 41, .cpu = 0, .count = 10, .time_ns = 1000}},
                              .softirqs = {{.vector = 3, .cpu = 1, .count = 5, .time_ns = 0}}};
  b.bpf =
      driver::BpfCounters{.irqs = {{.irq = 41, .cpu = 0, .count = 1010, .time_ns = 2'001'000}},
                          .softirqs = {{.vector = 3, .cpu = 1, .count = 505, .time_ns = 50'000'000},
                                       {.vector = 1, .cpu = 1, .count = 5, .time_ns = 10'000'000}}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_THAT(*Cpu(*w, 0).bpf_hardirq_share, DoubleNear(0.002, 1e-12));
  EXPECT_THAT(*Cpu(*w, 1).bpf_net_rx_share, DoubleNear(0.05, 1e-12));
  EXPECT_THAT(*Cpu(*w, 1).bpf_softirq_share, DoubleNear(0.06, 1e-12));
  ASSERT_EQ(w->irqs.size(), 1u);  // no /proc/interrupts here: the probes' count stands alone
  EXPECT_EQ(w->irqs[0].source, Source::kBpf);
  EXPECT_EQ(w->irqs[0].count, 1000u);
  EXPECT_DOUBLE_EQ(*w->irqs[0].mean_handler_ns, 2000.0);
}

TEST(ComputeWindowTest, DropsAreMatchedByTheirWholeKey) {
  Snapshot a = At(0), b = At(1);
  const driver::DropCounter rcvbuf{.reason = 6,
                                   .reason_name = "SOCKET_RCVBUFF",
                                   .protocol = 0x800,
                                   .l4_protocol = 17,
                                   .ifindex = 4,
                                   .local_port = 9000,
                                   .count = 5};
  driver::DropCounter later = rcvbuf;
  later.count = 105;
  driver::DropCounter other_port = rcvbuf;
  other_port.local_port = 9001;
  other_port.count = 7;
  a.bpf = driver::BpfCounters{.drops = {rcvbuf}};
  b.bpf = driver::BpfCounters{.drops = {later, other_port}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->drops.size(), 2u);
  EXPECT_EQ(w->drops[0].local_port, 9000);  // sorted by count
  EXPECT_EQ(w->drops[0].count, 100u);
  EXPECT_EQ(w->drops[1].count, 7u);  // new key: counted from zero
}

// The probe prunes idle keys and counts drops that find its map full by reason alone
// (driver::DropOrigin): each group's total stays exact, and what the keys no longer tell is one
// row of the group without port or socket.
TEST(ComputeWindowTest, DropTotalsStayExactWhenKeysArePrunedOrTheMapFills) {
  Snapshot a = At(0), b = At(1);
  const driver::DropCounter key{.reason = 6,
                                .reason_name = "SOCKET_RCVBUFF",
                                .protocol = 0x800,
                                .l4_protocol = 17,
                                .ifindex = 4,
                                .device = "veth1",
                                .local_port = 9000,
                                .socket_cookie = 77,
                                .count = 100};
  driver::DropCounter quiet = key;
  quiet.local_port = 9001;
  quiet.socket_cookie = 78;
  quiet.count = 10;
  a.bpf = driver::BpfCounters{.drops = {key, quiet}};
  // In between: 20 more at port 9000, then its key idle, pruned with 120, and made again by 30
  // more; the map then full for 8 more drops of the same reason.
  driver::DropCounter again = key;
  again.count = 30;
  driver::DropCounter pruned = key;
  pruned.origin = driver::DropOrigin::kPrunedKeys;
  pruned.local_port = 0;
  pruned.socket_cookie = 0;
  pruned.count = 120;
  const driver::DropCounter full{.origin = driver::DropOrigin::kMapFull,
                                 .reason = 6,
                                 .reason_name = "SOCKET_RCVBUFF",
                                 .count = 8};
  b.bpf = driver::BpfCounters{.drops = {again, quiet, pruned, full}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  uint64_t total = 0;
  for (const DropWindow& d : w->drops) total += d.count;
  EXPECT_EQ(total, 58u);
  ASSERT_EQ(w->drops.size(), 3u);
  EXPECT_EQ(w->drops[0].local_port, 9000);  // the key made again: counted from zero
  EXPECT_EQ(w->drops[0].count, 30u);
  EXPECT_EQ(w->drops[1].local_port, 0);  // the 20 before the key was pruned
  EXPECT_EQ(w->drops[1].device, "veth1");
  EXPECT_EQ(w->drops[1].count, 20u);
  EXPECT_FALSE(w->drops[1].map_full);
  EXPECT_TRUE(w->drops[2].map_full);
  EXPECT_EQ(w->drops[2].count, 8u);
  EXPECT_EQ(w->drops[2].device, "");
}

TEST(ComputeWindowTest, DropsOnADeviceOfAnotherNamespaceAreMarkedSo) {
  Snapshot a = At(0), b = At(1);
  const driver::DropCounter ours{
      .reason = 2, .ifindex = 3, .netns_inode = 4026531840, .device = "eth0", .count = 4};
  driver::DropCounter theirs = ours;
  theirs.netns_inode = 4026532001;
  theirs.device = "eth0@netns 4026532001";
  a.bpf = driver::BpfCounters{.netns_inode = 4026531840};
  b.bpf = driver::BpfCounters{.netns_inode = 4026531840, .drops = {ours, theirs}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->drops.size(), 2u);
  for (const DropWindow& d : w->drops) {
    EXPECT_EQ(d.other_namespace, d.device != "eth0") << d.device;
  }
}

TEST(ComputeWindowTest, DropsInAnotherNamespaceKeepTheProbesNameNotAHostDeviceWithTheirIfindex) {
  Snapshot a = At(0), b = At(1);
  // veth0 is ifindex 7 here; a container's device is ifindex 7 in its own namespace too.
  for (Snapshot* s : {&a, &b})
    s->devices = std::vector<procfs::NetDevice>{{.name = "veth0", .ifindex = 7}};
  const driver::DropCounter foreign{.reason = 6,
                                    .ifindex = 7,
                                    .netns_inode = 4026532999,
                                    .device = "ifindex 7@netns 4026532999",
                                    .count = 3};
  driver::DropCounter unnamed = foreign;
  unnamed.netns_inode = 0;
  unnamed.device = "";
  unnamed.local_port = 53;
  unnamed.count = 2;
  a.bpf = driver::BpfCounters{};
  b.bpf = driver::BpfCounters{.drops = {foreign, unnamed}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->drops.size(), 2u);
  EXPECT_EQ(w->drops[0].device, "ifindex 7@netns 4026532999");
  EXPECT_EQ(w->drops[1].device, "veth0");  // no name from the probe: matched by ifindex
}

TEST(ComputeWindowTest, SocketFillKeepsThisWindowsPeakAndChargedTruesize) {
  Snapshot a = At(0), b = At(1);
  driver::SocketFill s0{.key = {.cookie = 42, .local_port = 9000},
                        .enqueues = 100,
                        .truesize_sum = 100 * 2304,
                        .truesize_samples = 100};
  driver::SocketFill s1 = s0;
  s1.enqueues = 1100;
  s1.rcvbuf = 212992;
  s1.peak_rmem_alloc = 211968;
  s1.peak_fill = 211968.0 / 212992.0;
  s1.truesize_sum += 1000 * 2560;
  s1.truesize_samples += 1000;
  a.bpf = driver::BpfCounters{.sockets = {s0}};
  b.bpf = driver::BpfCounters{.sockets = {s1}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->sockets.size(), 1u);
  EXPECT_DOUBLE_EQ(w->sockets[0].enqueues_per_s, 1000.0);
  EXPECT_DOUBLE_EQ(*w->sockets[0].mean_truesize, 2560.0);
  EXPECT_GT(w->sockets[0].peak_fill, 0.99);
}

TEST(ComputeWindowTest, AWindowWithoutTruesizeSamplesKeepsTheSocketsMeanSoFar) {
  Snapshot a = At(0), b = At(1);
  driver::SocketFill s0{.key = {.cookie = 42, .local_port = 9000},
                        .udp_queue_failures = 10,
                        .truesize_sum = 100 * 2304 + 300 * 768,
                        .truesize_samples = 400};
  driver::SocketFill s1 = s0;
  s1.udp_queue_failures = 500;  // the socket kept dropping; the fill probe measured no packet
  a.bpf = driver::BpfCounters{.sockets = {s0}};
  b.bpf = driver::BpfCounters{.sockets = {s1}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->sockets.size(), 1u);
  ASSERT_TRUE(w->sockets[0].mean_truesize.has_value());
  EXPECT_DOUBLE_EQ(*w->sockets[0].mean_truesize, 1152.0);
  EXPECT_EQ(w->sockets[0].udp_queue_failures, 490u);
}

TEST(ComputeWindowTest, TruesizeQuantilesFromLog2Buckets) {
  Snapshot a = At(0), b = At(1);
  driver::TruesizeHistogram h{.ifindex = 2, .device = "eth0", .samples = 100, .bytes = 0};
  h.buckets.assign(driver::kTruesizeBuckets, 0);
  h.buckets[11] = 98;  // [2048, 4096)
  h.buckets[13] = 2;   // [8192, 16384)
  h.bytes = 98 * 2304 + 2 * 9000;
  a.bpf = driver::BpfCounters{};
  b.bpf = driver::BpfCounters{.truesize = {h}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->truesize.size(), 1u);
  EXPECT_DOUBLE_EQ(w->truesize[0].p50_bytes, 4096);
  EXPECT_DOUBLE_EQ(w->truesize[0].p99_bytes, 16384);
  EXPECT_DOUBLE_EQ(w->truesize[0].mean_bytes, (98 * 2304 + 2 * 9000) / 100.0);
}

// Two namespaces' eth0 share ifindex 2: each window is its own device's, and the one outside the
// agent's namespace says so.
TEST(ComputeWindowTest, TruesizeOfTwoNamespacesWithOneIfindexStaysApart) {
  Snapshot a = At(0), b = At(1);
  driver::TruesizeHistogram own{
      .ifindex = 2, .netns_inode = 100, .device = "eth0", .samples = 10, .bytes = 10 * 768};
  own.buckets.assign(driver::kTruesizeBuckets, 0);
  driver::TruesizeHistogram container = own;
  container.netns_inode = 200;
  container.samples = 50;
  container.bytes = 50 * 2304;
  a.bpf = driver::BpfCounters{.netns_inode = 100, .truesize = {own, container}};
  driver::TruesizeHistogram own_later = own;
  own_later.samples += 10;
  own_later.bytes += 10 * 1024;
  driver::TruesizeHistogram container_later = container;
  container_later.samples += 20;
  container_later.bytes += 20 * 4096;
  b.bpf = driver::BpfCounters{.netns_inode = 100, .truesize = {own_later, container_later}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->truesize.size(), 2u);
  EXPECT_EQ(w->truesize[0].samples, 10u);
  EXPECT_DOUBLE_EQ(w->truesize[0].mean_bytes, 1024);
  EXPECT_FALSE(w->truesize[0].other_namespace);
  EXPECT_EQ(w->truesize[1].samples, 20u);
  EXPECT_DOUBLE_EQ(w->truesize[1].mean_bytes, 4096);
  EXPECT_TRUE(w->truesize[1].other_namespace);
}

TEST(ComputeWindowTest, EmulatedNicRatesFollowTheNicsOwnClock) {
  // The agent's window is 2 s; the NIC's readings, taken a moment after each snapshot, span
  // 2.5 s of its clock: 500 interrupts over 2.5 s are 200/s, not 250/s.
  Snapshot a = At(10), b = At(12);
  driver::emulated::EmulatedNicCounters before;
  before.elapsed_ns = 1'000'000'000;
  before.interrupts = 1000;
  before.delivered = 40000;
  before.missed = 5;
  before.stalls = 2;
  before.stall_late_ns_total = 3'000'000;
  driver::emulated::EmulatedNicCounters after = before;
  after.elapsed_ns = 3'500'000'000;
  after.interrupts = 1500;
  after.delivered = 65000;
  after.missed = 30;
  after.stalls = 3;
  after.stall_late_ns_total = 19'800'000;  // one more stall, 16.8 ms late
  a.emulated_nics = {{.device = "emu0", .counters = before},
                     {.device = "emu1", .counters = before}};
  // emu1 was started again (its counters went back) and emu2 has no baseline: neither has a rate.
  driver::emulated::EmulatedNicCounters restarted;
  restarted.elapsed_ns = 500'000'000;
  restarted.interrupts = 10;
  b.emulated_nics = {{.device = "emu0", .counters = after},
                     {.device = "emu1", .counters = restarted},
                     {.device = "emu2", .counters = after}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->emulated_nics.size(), 1u);
  const EmulatedNicWindow& e = w->emulated_nics[0];
  EXPECT_EQ(e.device, "emu0");
  EXPECT_DOUBLE_EQ(e.seconds, 2.5);
  EXPECT_EQ(e.interrupts, 500u);
  EXPECT_DOUBLE_EQ(e.interrupts_per_s, 200.0);
  EXPECT_DOUBLE_EQ(e.delivered_per_s, 10000.0);
  EXPECT_DOUBLE_EQ(e.missed_per_s, 10.0);
  EXPECT_EQ(e.stalls, 1u);
  EXPECT_DOUBLE_EQ(e.stall_seconds, 0.0168);
}

TEST(ComputeWindowTest, EmulatedNicQueuesHaveRatesOfTheirOwnOverTheNicsSpan) {
  Snapshot a = At(10), b = At(12);
  driver::emulated::EmulatedNicCounters before;
  before.elapsed_ns = 1'000'000'000;
  driver::emulated::EmulatedNicCounters after = before;
  after.elapsed_ns = 3'000'000'000;
  after.interrupts = 600;
  std::vector<driver::emulated::EmulatedNicCounters> queues_before(2, before);
  std::vector<driver::emulated::EmulatedNicCounters> queues_after(2, after);
  queues_after[0].interrupts = 200;
  queues_after[0].napi_thread = 41;
  queues_after[1].interrupts = 400;
  queues_after[1].missed = 30;
  queues_after[1].napi_thread = 42;
  a.emulated_nics = {{.device = "emu0", .counters = before, .queues = queues_before},
                     {.device = "emu1", .counters = before, .queues = queues_before}};
  // emu1's second reading has no queues: its queues have no rates, the device still has.
  b.emulated_nics = {{.device = "emu0", .counters = after, .queues = queues_after},
                     {.device = "emu1", .counters = after}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->emulated_nics.size(), 2u);
  const EmulatedNicWindow& e = w->emulated_nics[0];
  ASSERT_EQ(e.queues.size(), 2u);
  EXPECT_EQ(e.queues[0].napi_thread, 41u);
  EXPECT_DOUBLE_EQ(e.queues[0].interrupts_per_s, 100.0);
  EXPECT_EQ(e.queues[1].queue, 1u);
  EXPECT_DOUBLE_EQ(e.queues[1].interrupts_per_s, 200.0);
  EXPECT_DOUBLE_EQ(e.queues[1].missed_per_s, 15.0);
  EXPECT_TRUE(w->emulated_nics[1].queues.empty());
  EXPECT_DOUBLE_EQ(w->emulated_nics[1].interrupts_per_s, 300.0);
}

TEST(ComputeWindowTest, EmulatedNicWithoutTrafficYetUsesTheWindowsLength) {
  Snapshot a = At(0), b = At(4);
  driver::emulated::EmulatedNicCounters idle;  // the NIC's clock starts with its traffic
  driver::emulated::EmulatedNicCounters later = idle;
  later.interrupts = 8;
  a.emulated_nics = {{.device = "emu0", .counters = idle}};
  b.emulated_nics = {{.device = "emu0", .counters = later}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->emulated_nics.size(), 1u);
  EXPECT_DOUBLE_EQ(w->emulated_nics[0].seconds, 4.0);
  EXPECT_DOUBLE_EQ(w->emulated_nics[0].interrupts_per_s, 2.0);
}

TEST(WindowJsonTest, EveryGroupNamesItsSource) {
  Snapshot a = At(0), b = At(1);
  a.softnet = {{procfs::SoftnetRow{.cpu = 0, .processed = 1}}};
  b.softnet = {{procfs::SoftnetRow{.cpu = 0, .processed = 11}}};
  b.sources = {{.name = "bpf",
                .source = Source::kBpf,
                .in_use = false,
                .detail = "bpf: Operation not permitted (errno 1)"}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  const nlohmann::json j = WindowToJson(*w);
  EXPECT_EQ(j["cpus"][0]["softnet"]["source"], "procfs");
  EXPECT_EQ(j["cpus"][0]["softnet"]["processed_per_s"], 10.0);
  EXPECT_EQ(j["sources"][0]["name"], "bpf");
  EXPECT_EQ(j["sources"][0]["in_use"], false);
  EXPECT_THAT(j["sources"][0]["detail"].get<std::string>(), HasSubstr("errno 1"));
}

TEST(WindowJsonTest, EmulatedNicInterruptsNameTheNicsCounters) {
  Snapshot a = At(0), b = At(1);
  driver::emulated::EmulatedNicCounters before;
  before.elapsed_ns = 1'000'000'000;
  driver::emulated::EmulatedNicCounters after = before;
  after.elapsed_ns = 2'000'000'000;
  after.interrupts = 224;
  a.emulated_nics = {{.device = "emu0", .counters = before}};
  b.emulated_nics = {{.device = "emu0", .counters = after}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  const nlohmann::json j = WindowToJson(*w);
  ASSERT_EQ(j["emulated_nics"].size(), 1u) << j.dump();
  EXPECT_EQ(j["emulated_nics"][0]["device"], "emu0");
  EXPECT_EQ(j["emulated_nics"][0]["source"], "emulated NIC counters");
  EXPECT_EQ(j["emulated_nics"][0]["interrupts"], 224);
  EXPECT_EQ(j["emulated_nics"][0]["interrupts_per_s"], 224.0);
}

}  // namespace
}  // namespace nictune::model
