// SPDX-License-Identifier: Apache-2.0
// BuildObservation on Windows computed by ComputeWindow from Snapshots: procfs counters as the
// kernel structures them, BPF counters as the probes report them.
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>

#include "agent/model/window.h"
#include "agent/observe/observation_builder.h"
#include "agent/observe/window_counts.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tuner/observation_check.h"
#include "tuner/recommend.h"

namespace nictune::observe {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr uint64_t kSecond = 1'000'000'000;
constexpr uint8_t kUdp = 17;
constexpr uint16_t kAfInet = 2;

model::Snapshot At(uint64_t seconds, bool bpf) {
  model::Snapshot s;
  s.monotonic_ns = seconds * kSecond;
  s.unix_ns = static_cast<int64_t>(seconds * kSecond);
  s.sources.push_back({.name = "bpf", .source = model::Source::kBpf, .in_use = bpf});
  if (bpf) s.bpf = driver::BpfCounters{};
  return s;
}

procfs::InterruptLine Irq(uint32_t irq, std::vector<uint64_t> per_cpu, std::string actions) {
  return {.id = std::to_string(irq),
          .irq = irq,
          .per_cpu = std::move(per_cpu),
          .chip = "PCI-MSIX-0000:3b:00.0",
          .actions = std::move(actions)};
}

procfs::SoftnetRow Softnet(uint32_t cpu, uint32_t dropped, uint32_t squeeze) {
  return {.cpu = cpu, .columns = 13, .dropped = dropped, .time_squeeze = squeeze};
}

procfs::NetDevice Device(std::string name, int32_t ifindex, std::string driver, uint64_t rx,
                         uint64_t missed) {
  return {.name = std::move(name),
          .ifindex = ifindex,
          .driver = std::move(driver),
          .statistics = {{"rx_packets", rx},
                         {"rx_missed_errors", missed},
                         {"rx_fifo_errors", 0},
                         {"rx_over_errors", 0}},
          .rx_queues = 2,
          .tx_queues = 2};
}

driver::NapiCounter Napi(uint32_t id, int32_t ifindex, std::string device, uint64_t polls,
                         uint64_t work, uint64_t exhausted, uint64_t tx) {
  return {.napi_id = id,
          .ifindex = ifindex,
          .device = std::move(device),
          .polls = polls,
          .work = work,
          .budget_exhausted = exhausted,
          .last_budget = 64,
          .tx_completions = tx};
}

driver::SocketFill Socket(uint64_t cookie, uint16_t port, uint64_t enqueues, uint32_t rcvbuf,
                          double peak_fill, uint64_t truesize_each) {
  return {.key = {.cookie = cookie, .family = kAfInet, .protocol = kUdp, .local_port = port},
          .enqueues = enqueues,
          .rcvbuf = rcvbuf,
          .peak_fill = peak_fill,
          .truesize_sum = truesize_each * enqueues,
          .truesize_samples = enqueues};
}

driver::DropCounter RcvbuffDrop(int32_t ifindex, std::string device, uint16_t port, uint64_t cookie,
                                uint64_t count) {
  return {.reason = 6,
          .reason_name = "SOCKET_RCVBUFF",
          .protocol = 0x0800,
          .l4_protocol = kUdp,
          .ifindex = ifindex,
          .device = std::move(device),
          .local_port = port,
          .socket_cookie = cookie,
          .count = count};
}

procfs::CpuTimes Ticks(int cpu, uint64_t user, uint64_t idle, uint64_t irq, uint64_t softirq) {
  procfs::CpuTimes t;
  t.cpu = cpu;
  t.user = user;
  t.idle = idle;
  t.irq = irq;
  t.softirq = softirq;
  return t;
}

// eth1, an ixgbe with two combined queues on CPUs 0 and 1, over 2 s. Queue 0 takes 4000
// interrupts and 200000 packets, queue 1 2000 and 100000; a UDP socket on port 5001 drops 400.
struct TwoQueueHost {
  model::Snapshot before, after;
  agent::Topology topology;
};

TwoQueueHost TwoQueueIxgbe(bool bpf) {
  TwoQueueHost h{.before = At(10, bpf), .after = At(12, bpf)};
  h.before.interrupts = procfs::InterruptTable{
      .cpu_count = 2,
      .cpu_ids = {0, 1},
      .lines = {Irq(50, {100, 0}, "eth1-TxRx-0"), Irq(51, {0, 50}, "eth1-TxRx-1")}};
  h.after.interrupts = procfs::InterruptTable{
      .cpu_count = 2,
      .cpu_ids = {0, 1},
      .lines = {Irq(50, {4100, 0}, "eth1-TxRx-0"), Irq(51, {0, 2050}, "eth1-TxRx-1")}};
  h.before.softnet = {{Softnet(0, 0, 10), Softnet(1, 7, 0)}};
  h.after.softnet = {{Softnet(0, 3, 16), Softnet(1, 7, 0)}};
  h.before.stat = procfs::ProcStat{.cpus = {Ticks(0, 0, 0, 0, 0), Ticks(1, 0, 0, 0, 0)}};
  // cpu 0: 20% user, 40% idle, 10% hardirq, 30% softirq; cpu 1: 60% user, 30% idle, 10% softirq
  h.after.stat = procfs::ProcStat{.cpus = {Ticks(0, 40, 80, 20, 60), Ticks(1, 120, 60, 0, 20)}};
  h.before.snmp = procfs::SnmpCounters{{"Udp", {{"RcvbufErrors", 1000}, {"MemErrors", 5}}}};
  h.after.snmp = procfs::SnmpCounters{{"Udp", {{"RcvbufErrors", 1400}, {"MemErrors", 9}}}};
  h.before.devices = std::vector<procfs::NetDevice>{Device("eth1", 3, "ixgbe", 1000, 5)};
  h.after.devices = std::vector<procfs::NetDevice>{Device("eth1", 3, "ixgbe", 301000, 9)};
  if (bpf) {
    h.after.bpf->napis = {Napi(8193, 3, "eth1", 5000, 200000, 500, 1000),
                          Napi(8194, 3, "eth1", 3000, 100000, 0, 0)};
    h.after.bpf->irqs = {{.irq = 50, .cpu = 0, .count = 4000, .time_ns = 4000 * 1500}};
    h.after.bpf->drops = {RcvbuffDrop(3, "eth1", 5001, 77, 400)};
    h.after.bpf->sockets = {Socket(77, 5001, 150000, 212992, 1.02, 2304)};
  }
  using collect::QueueKind;
  h.topology.queue_map.bindings = {{.device = "eth1",
                                    .ifindex = 3,
                                    .queue = 0,
                                    .kind = QueueKind::kCombined,
                                    .irq = 50,
                                    .cpus = {0},
                                    .napi_id = 8193,
                                    .source = collect::kSourceNetdevNetlink},
                                   {.device = "eth1",
                                    .ifindex = 3,
                                    .queue = 1,
                                    .kind = QueueKind::kCombined,
                                    .irq = 51,
                                    .cpus = {1},
                                    .napi_id = 8194,
                                    .source = collect::kSourceNetdevNetlink}};
  collect::DeviceSettings settings{.device = "eth1"};
  settings.coalesce =
      driver::netlink::CoalesceSettings{.device = "eth1",
                                        .source = driver::netlink::kEthtoolNetlinkSource,
                                        .rx_usecs = 1,
                                        .use_adaptive_rx = true};
  settings.rings = driver::netlink::RingSettings{.device = "eth1", .rx = 512, .rx_max = 4096};
  h.topology.settings = {settings};
  return h;
}

tuner::Observation Build(const model::Snapshot& before, const model::Snapshot& after,
                         const agent::Topology& topology, const ObservationOptions& options = {}) {
  absl::StatusOr<model::Window> window = model::ComputeWindow(before, after);
  EXPECT_TRUE(window.ok()) << window.status();
  return BuildObservation(*window, topology, tuner::HostKnobs{}, options);
}

TEST(BuildObservationTest, MultiQueueDeviceWithBpfNapiCountsIsObservedPerQueue) {
  const TwoQueueHost h = TwoQueueIxgbe(/*bpf=*/true);
  const tuner::Observation obs = Build(h.before, h.after, h.topology);
  EXPECT_EQ(obs.window, absl::Seconds(2));
  EXPECT_EQ(obs.samples, 1u);
  ASSERT_EQ(obs.queues.size(), 2u);

  const tuner::QueueObservation& q0 = obs.queues[0];
  EXPECT_EQ(q0.device, "eth1");
  EXPECT_EQ(q0.queue, 0);
  EXPECT_EQ(q0.rx_packets, 200000u);  // its NAPI instance's work: statistics are per device
  EXPECT_EQ(q0.interrupts, 4000u);
  EXPECT_EQ(q0.polls, 5000u);
  EXPECT_EQ(q0.polls_budget_exhausted, 500u);
  EXPECT_EQ(q0.rx_work, 200000u);
  EXPECT_EQ(q0.tx_work, 1000u);
  EXPECT_EQ(q0.time_squeeze, 6u);  // cpu 0 only
  EXPECT_EQ(q0.drops.backlog, 3u);
  EXPECT_EQ(q0.drops.ring, 4u);      // rx_missed_errors of the device
  EXPECT_EQ(q0.drops.socket, 400u);  // the BPF drop records of eth1, not the host's 400 in snmp
  EXPECT_EQ(q0.drops.proto_mem, 0u);
  EXPECT_DOUBLE_EQ(q0.interrupt_cost_s, 1.5e-6);
  EXPECT_DOUBLE_EQ(q0.cpu.hardirq, 0.1);
  EXPECT_DOUBLE_EQ(q0.cpu.softirq, 0.3);
  EXPECT_DOUBLE_EQ(q0.cpu.user, 0.2);
  EXPECT_DOUBLE_EQ(q0.cpu.idle, 0.4);
  EXPECT_EQ(q0.serving_cpus, 1u);
  EXPECT_EQ(q0.rx_rings, 1u);
  EXPECT_TRUE(q0.coalesce.rx_usecs_supported);
  EXPECT_FALSE(q0.coalesce.rx_frames_supported);  // not reported by the driver
  EXPECT_TRUE(q0.coalesce.adaptive_rx);
  EXPECT_EQ(q0.coalesce.rx_ring_size, 512u);
  EXPECT_EQ(q0.coalesce.rx_usecs_granularity, 2u);
  EXPECT_EQ(q0.coalesce.rx_usecs_max, 1022u);
  EXPECT_FALSE(q0.defer.supported);

  ASSERT_EQ(q0.sockets.size(), 1u);
  const tuner::SocketObservation& s = q0.sockets[0];
  EXPECT_EQ(s.name, "udp port 5001 cookie 77");
  EXPECT_EQ(s.packets, 150400u);  // 150000 enqueued + 400 refused
  EXPECT_DOUBLE_EQ(s.truesize_mean_bytes, 2304);
  EXPECT_EQ(s.rcvbuf_bytes, 212992u);
  EXPECT_DOUBLE_EQ(s.peak_fill, 1.0);  // UDP admits one packet past a full buffer: 1.02
  EXPECT_EQ(s.drops, 400u);
  EXPECT_FALSE(s.rcvbuf_locked);  // rmem_default

  const tuner::QueueObservation& q1 = obs.queues[1];
  EXPECT_EQ(q1.queue, 1);
  EXPECT_EQ(q1.rx_packets, 100000u);
  EXPECT_EQ(q1.interrupts, 2000u);
  EXPECT_EQ(q1.time_squeeze, 0u);
  EXPECT_EQ(q1.drops.backlog, 0u);
  EXPECT_DOUBLE_EQ(q1.interrupt_cost_s, 0);  // no BPF handler time for irq 51: unknown
  EXPECT_DOUBLE_EQ(q1.cpu.user, 0.6);
  // Which queue fed the socket is unknown: every queue of its device carries it.
  ASSERT_EQ(q1.sockets.size(), 1u);
  EXPECT_EQ(q1.sockets[0].name, s.name);

  EXPECT_TRUE(tuner::CheckObservation(obs).ok()) << tuner::CheckObservation(obs);
}

// Threaded NAPI: each queue's poller ran for part of the 2 s window (/proc/PID/schedstat), one
// named by its NAPI instance, the other by its queue; a poller of another device is not eth1's,
// nor that of a NAPI instance the map ties to a tx queue alone. Per queue each has its own; the
// whole device (no per-queue counts without BPF) their mean.
TEST(BuildObservationTest, EachQueueCarriesItsThreadedNapiPollersShareOfACpu) {
  for (const bool bpf : {true, false}) {
    TwoQueueHost h = TwoQueueIxgbe(bpf);
    const auto poller = [](uint32_t pid, const char* device, int queue,
                           std::optional<uint32_t> napi_id, uint64_t run_ns) {
      return model::NapiPollerTime{
          .poller = {.pid = pid, .device = device, .queue = queue, .napi_id = napi_id},
          .run_ns = run_ns};
    };
    h.topology.queue_map.bindings.push_back({.device = "eth1",
                                             .queue = 7,
                                             .kind = collect::QueueKind::kTx,
                                             .napi_id = 8200,
                                             .napi_thread = 703});
    h.before.napi_pollers = {
        poller(700, "eth1", -1, 8193, 5'000'000'000), poller(701, "eth1", 1, std::nullopt, 0),
        poller(702, "eth2", 0, std::nullopt, 0), poller(703, "eth1", -1, 8200, 0)};
    h.after.napi_pollers = {poller(700, "eth1", -1, 8193, 5'600'000'000),
                            poller(701, "eth1", 1, std::nullopt, 200'000'000),
                            poller(702, "eth2", 0, std::nullopt, 2'000'000'000),
                            poller(703, "eth1", -1, 8200, 2'000'000'000)};
    const tuner::Observation obs = Build(h.before, h.after, h.topology);
    if (bpf) {
      ASSERT_EQ(obs.queues.size(), 2u);
      EXPECT_EQ(obs.queues[0].napi_pollers, 1u);
      EXPECT_DOUBLE_EQ(obs.queues[0].napi_poller_cpu, 0.3);  // 0.6 s of 2 s
      EXPECT_EQ(obs.queues[1].napi_pollers, 1u);
      EXPECT_DOUBLE_EQ(obs.queues[1].napi_poller_cpu, 0.1);
    } else {
      ASSERT_EQ(obs.queues.size(), 1u);
      EXPECT_EQ(obs.queues[0].napi_pollers, 2u);
      EXPECT_DOUBLE_EQ(obs.queues[0].napi_poller_cpu, 0.2);
    }
    EXPECT_TRUE(tuner::CheckObservation(obs).ok()) << tuner::CheckObservation(obs);
  }
}

TEST(BuildObservationTest, ProcfsOnlyMultiQueueDeviceIsOneWholeDeviceQueueWithoutSockets) {
  const TwoQueueHost h = TwoQueueIxgbe(/*bpf=*/false);
  const tuner::Observation obs = Build(h.before, h.after, h.topology);
  ASSERT_EQ(obs.queues.size(), 1u);
  const tuner::QueueObservation& q = obs.queues[0];
  EXPECT_EQ(q.device, "eth1");
  EXPECT_EQ(q.queue, -1);
  EXPECT_EQ(q.rx_packets, 300000u);
  EXPECT_EQ(q.interrupts, 6000u);
  EXPECT_EQ(q.polls, 0u);  // no NAPI probe
  EXPECT_EQ(q.time_squeeze, 6u);
  EXPECT_EQ(q.drops.ring, 4u);
  // Without drop records the host-wide UDP counters are all there is.
  EXPECT_EQ(q.drops.socket, 400u);
  EXPECT_EQ(q.drops.proto_mem, 4u);
  EXPECT_DOUBLE_EQ(q.cpu.user, 0.4);  // mean of cpu 0 (0.2) and cpu 1 (0.6)
  EXPECT_DOUBLE_EQ(q.cpu.softirq, 0.2);
  EXPECT_EQ(q.serving_cpus, 2u);  // the mean's
  EXPECT_EQ(q.rx_rings, 2u);      // both queues' packets, each ring its share
  EXPECT_DOUBLE_EQ(q.interrupt_cost_s, 0);
  // No per-socket detail: no pseudo-socket is invented; the tuner says what it lacks.
  EXPECT_THAT(q.sockets, IsEmpty());
  EXPECT_TRUE(tuner::CheckObservation(obs).ok());
  absl::StatusOr<std::vector<tuner::Recommendation>> recs =
      tuner::Recommend(obs, tuner::PolicyConfig{});
  ASSERT_TRUE(recs.ok()) << recs.status();
}

TEST(BuildObservationTest, SingleQueueVethWithoutIrqIsTheWholeDeviceOnEveryCpu) {
  model::Snapshot before = At(0, true), after = At(4, true);
  before.devices = std::vector<procfs::NetDevice>{Device("veth0", 7, "", 100, 0)};
  after.devices = std::vector<procfs::NetDevice>{Device("veth0", 7, "", 40100, 0)};
  before.softnet = {{Softnet(0, 0, 0), Softnet(1, 0, 0)}};
  after.softnet = {{Softnet(0, 0, 2), Softnet(1, 0, 1)}};
  // veth's GRO NAPI instance, and one of a namesake in another namespace (other ifindex).
  after.bpf->napis = {Napi(9001, 7, "veth0", 1000, 40000, 10, 0),
                      Napi(9002, 12, "veth0", 50, 50, 0, 0)};
  agent::Topology topology;
  topology.settings = {{.device = "veth0",
                        .coalesce_error = "ethtool netlink COALESCE_GET veth0: Operation not "
                                          "supported (errno 95)",
                        .coalesce_unsupported = true}};
  ObservationOptions options;
  options.defer["veth0"] = {
      .supported = true, .napi_defer_hard_irqs = 2, .gro_flush_timeout_ns = 20000};
  const tuner::Observation obs = Build(before, after, topology, options);
  ASSERT_EQ(obs.queues.size(), 1u);
  const tuner::QueueObservation& q = obs.queues[0];
  EXPECT_EQ(q.device, "veth0");
  EXPECT_EQ(q.queue, -1);
  EXPECT_EQ(q.rx_packets, 40000u);
  EXPECT_EQ(q.interrupts, 0u);
  EXPECT_EQ(q.polls, 1000u);
  EXPECT_EQ(q.polls_budget_exhausted, 10u);
  EXPECT_EQ(q.time_squeeze, 3u);  // both CPUs: veth's softirq runs where its senders run
  EXPECT_FALSE(q.coalesce.rx_usecs_supported);
  EXPECT_FALSE(q.coalesce.adaptive_rx_supported);
  EXPECT_TRUE(q.defer.supported);
  EXPECT_EQ(q.defer.napi_defer_hard_irqs, 2u);
  EXPECT_EQ(q.defer.gro_flush_timeout_ns, 20000u);
  EXPECT_TRUE(tuner::CheckObservation(obs).ok()) << tuner::CheckObservation(obs);
}

// The threaded mode reaches each queue of a device that polls through NAPI instances of its own:
// one with mapped queues, or one whose polls the probe saw (a veth with GRO). A TAP with neither
// cannot poll in threads, whatever its sysfs file says. The host's idle CPUs are each CPU's idle
// share, summed.
TEST(BuildObservationTest, ThreadedModeReachesDevicesWithNapiInstancesAndIdleCpusAreSummed) {
  TwoQueueHost h = TwoQueueIxgbe(/*bpf=*/true);
  h.before.devices->push_back(Device("veth0", 7, "", 100, 0));
  h.after.devices->push_back(Device("veth0", 7, "", 40100, 0));
  h.before.devices->push_back(Device("tap0", 8, "tun", 100, 0));
  h.after.devices->push_back(Device("tap0", 8, "tun", 20100, 0));
  h.after.bpf->napis.push_back(Napi(9001, 7, "veth0", 1000, 40000, 10, 0));
  ObservationOptions options;
  options.napi_threaded = {{"eth1", 1}, {"veth0", 0}, {"tap0", 0}};
  const tuner::Observation obs = Build(h.before, h.after, h.topology, options);
  // cpu 0 idles 40%, cpu 1 30%.
  EXPECT_DOUBLE_EQ(obs.idle_cpus, 0.7);
  std::map<std::string, int32_t> modes;
  for (const tuner::QueueObservation& q : obs.queues) {
    const auto [it, first] = modes.try_emplace(q.device, q.napi_threaded);
    EXPECT_TRUE(first || it->second == q.napi_threaded) << q.device;
  }
  EXPECT_EQ(modes, (std::map<std::string, int32_t>{{"eth1", 1}, {"tap0", -1}, {"veth0", 0}}));
  EXPECT_TRUE(tuner::CheckObservation(obs).ok()) << tuner::CheckObservation(obs);
  // An isolated CPU's idle time is none a kernel thread can take.
  options.isolated_cpus = {1};
  EXPECT_DOUBLE_EQ(Build(h.before, h.after, h.topology, options).idle_cpus, 0.4);
}

// A tuner window's peak receive rates (WindowAggregator) reach the tuner as the queue's peak: the
// device's for a whole-device queue, its NAPI instance's for one of several queues.
TEST(BuildObservationTest, AQueuesPeakRateIsItsBusiestIntervals) {
  const TwoQueueHost h = TwoQueueIxgbe(/*bpf=*/true);
  absl::StatusOr<model::Window> window = model::ComputeWindow(h.before, h.after);
  ASSERT_TRUE(window.ok()) << window.status();
  for (model::NapiWindow& napi : window->napis) napi.peak_work_per_s = 3 * napi.work_per_s;
  const tuner::Observation per_queue =
      BuildObservation(*window, h.topology, tuner::HostKnobs{}, {});
  ASSERT_EQ(per_queue.queues.size(), 2u);
  EXPECT_DOUBLE_EQ(per_queue.queues[0].rx_peak_rate_pps, 3 * 200000 / 2.0);
  EXPECT_DOUBLE_EQ(per_queue.queues[1].rx_peak_rate_pps, 3 * 100000 / 2.0);

  absl::StatusOr<model::Window> procfs_only =
      model::ComputeWindow(TwoQueueIxgbe(/*bpf=*/false).before, TwoQueueIxgbe(false).after);
  ASSERT_TRUE(procfs_only.ok()) << procfs_only.status();
  procfs_only->devices.at(0).peak_rx_packets_per_s = 400000;
  const tuner::Observation whole =
      BuildObservation(*procfs_only, h.topology, tuner::HostKnobs{}, {});
  ASSERT_EQ(whole.queues.size(), 1u);
  EXPECT_DOUBLE_EQ(whole.queues[0].rx_peak_rate_pps, 400000);
  EXPECT_TRUE(tuner::CheckObservation(whole).ok()) << tuner::CheckObservation(whole);

  // An interval's own window has no peak: the tuner takes the mean.
  EXPECT_EQ(Build(h.before, h.after, h.topology).queues[0].rx_peak_rate_pps, 0);
}

// The serving CPUs' steal and an emulated NIC's stalled lateness are the time the queue's
// delivery was held off; the longer of the two counts.
TEST(BuildObservationTest, AQueuesStallIsItsCpusStealOrItsEmulatedNicsLateness) {
  model::Snapshot before = At(0, false), after = At(4, false);
  before.devices = std::vector<procfs::NetDevice>{Device("veth0", 7, "", 100, 0)};
  after.devices = std::vector<procfs::NetDevice>{Device("veth0", 7, "", 40100, 0)};
  // Two CPUs, 1000 ticks each in 4 s: CPU 0 stolen for 100 of them, CPU 1 for none.
  procfs::ProcStat stat_before;
  stat_before.cpus = {{.cpu = 0, .idle = 1000}, {.cpu = 1, .idle = 1000}};
  procfs::ProcStat stat_after;
  stat_after.cpus = {{.cpu = 0, .idle = 1900, .steal = 100}, {.cpu = 1, .idle = 2000}};
  before.stat = stat_before;
  after.stat = stat_after;
  agent::Topology topology;
  tuner::Observation obs = Build(before, after, topology);
  ASSERT_EQ(obs.queues.size(), 1u);
  EXPECT_DOUBLE_EQ(obs.queues[0].cpu.steal, 0.05);
  EXPECT_DOUBLE_EQ(obs.queues[0].stall_s, 0.2);  // a mean 5% of the CPUs' time, of 4 s

  driver::emulated::EmulatedNicCounters nic_before;
  nic_before.elapsed_ns = 1'000'000'000;
  driver::emulated::EmulatedNicCounters nic_after = nic_before;
  nic_after.elapsed_ns = 5'000'000'000;
  nic_after.stalls = 13;
  nic_after.stall_late_ns_total = 450'000'000;
  before.emulated_nics = {{.device = "veth0", .counters = nic_before}};
  after.emulated_nics = {{.device = "veth0", .counters = nic_after}};
  obs = Build(before, after, topology);
  ASSERT_EQ(obs.queues.size(), 1u);
  EXPECT_DOUBLE_EQ(obs.queues[0].stall_s, 0.45);
}

// Seed 001: an ixgbe queue at 812744 pps of 1514-byte frames (truesize 2994) into one UDP socket
// with the default 212992-byte buffer, interrupted at 8K/s by the adaptive ITR, dropping. The
// Observation built from the probes' counters must lead the tuner below T_fill = 87.5 us.
TEST(BuildObservationTest, Seed001SocketFillLeadsRecommendBelowTheFillTime) {
  constexpr uint64_t kRate = 812744;
  constexpr uint64_t kSeconds = 10;
  model::Snapshot before = At(100, true), after = At(100 + kSeconds, true);
  before.interrupts = procfs::InterruptTable{
      .cpu_count = 2, .cpu_ids = {0, 1}, .lines = {Irq(41, {0, 0}, "eth0-TxRx-0")}};
  after.interrupts = procfs::InterruptTable{
      .cpu_count = 2, .cpu_ids = {0, 1}, .lines = {Irq(41, {8000 * kSeconds, 0}, "eth0-TxRx-0")}};
  before.devices = std::vector<procfs::NetDevice>{Device("eth0", 2, "ixgbe", 0, 0)};
  after.devices =
      std::vector<procfs::NetDevice>{Device("eth0", 2, "ixgbe", (kRate + 400000) * kSeconds, 0)};
  before.stat = procfs::ProcStat{.cpus = {Ticks(0, 0, 0, 0, 0)}};
  after.stat = procfs::ProcStat{.cpus = {Ticks(0, 400, 200, 20, 300)}};
  after.bpf->napis = {Napi(1, 2, "eth0", 8000 * kSeconds, (kRate + 400000) * kSeconds, 0, 0)};
  after.bpf->irqs = {
      {.irq = 41, .cpu = 0, .count = 8000 * kSeconds, .time_ns = 8000 * kSeconds * 2000}};
  // 812744 pps arrive for the socket: it takes 412744/s and its full buffer refuses 400000/s.
  after.bpf->sockets = {Socket(9, 12865, (kRate - 400000) * kSeconds, 212992, 1.0, 2994)};
  after.bpf->drops = {RcvbuffDrop(2, "eth0", 12865, 9, 400000 * kSeconds)};
  agent::Topology topology;
  topology.queue_map.bindings = {{.device = "eth0",
                                  .ifindex = 2,
                                  .queue = 0,
                                  .kind = collect::QueueKind::kCombined,
                                  .irq = 41,
                                  .cpus = {0},
                                  .napi_id = 1,
                                  .source = collect::kSourceIrqName}};
  collect::DeviceSettings settings{.device = "eth0"};
  settings.coalesce =
      driver::netlink::CoalesceSettings{.device = "eth0",
                                        .source = driver::netlink::kEthtoolNetlinkSource,
                                        .rx_usecs = 1,
                                        .rx_max_frames = 0,
                                        .use_adaptive_rx = true};
  settings.rings = driver::netlink::RingSettings{.device = "eth0", .rx = 512};
  topology.settings = {settings};
  ObservationOptions options;
  options.samples = 10;

  const tuner::Observation obs = Build(before, after, topology, options);
  ASSERT_EQ(obs.queues.size(), 1u);
  const tuner::QueueObservation& q = obs.queues[0];
  EXPECT_EQ(q.queue, 0);
  EXPECT_EQ(q.interrupts, 80000u);
  EXPECT_DOUBLE_EQ(q.interrupt_cost_s, 2e-6);
  ASSERT_EQ(q.sockets.size(), 1u);
  EXPECT_EQ(q.sockets[0].packets, kRate * kSeconds);  // enqueued + refused
  EXPECT_DOUBLE_EQ(q.sockets[0].truesize_mean_bytes, 2994);
  EXPECT_EQ(q.sockets[0].rcvbuf_bytes, 212992u);
  EXPECT_EQ(q.sockets[0].drops, 4'000'000u);
  EXPECT_EQ(q.drops.socket, 4'000'000u);

  absl::StatusOr<std::vector<tuner::Recommendation>> recs =
      tuner::Recommend(obs, tuner::PolicyConfig{});
  ASSERT_TRUE(recs.ok()) << recs.status();
  const tuner::Recommendation* usecs = nullptr;
  for (const tuner::Recommendation& r : *recs) {
    if (r.knob == tuner::Knob::kRxUsecs) usecs = &r;
  }
  ASSERT_NE(usecs, nullptr);
  EXPECT_GT(usecs->recommended, 0);
  EXPECT_LT(static_cast<double>(usecs->recommended), 87.5);
  EXPECT_EQ(usecs->recommended % 2, 0);  // ixgbe's 2 us steps
  EXPECT_THAT(usecs->formula, HasSubstr("212992 B / 2994 B = 71.14 packets"));
}

// A counter that went backwards is taken as restarted (ResettingDelta64), so a garbage reading
// near 2^64 becomes an impossible count; the builder keeps it (saturating, never undefined) for
// the tuner's check to reject by name.
TEST(BuildObservationTest, WrappedCounterReachesTheTunerAndIsRejectedByItsCheck) {
  model::Snapshot before = At(0, false), after = At(10, false);
  before.devices = std::vector<procfs::NetDevice>{Device("eth0", 2, "virtio_net", 5000, 0)};
  after.devices = std::vector<procfs::NetDevice>{
      Device("eth0", 2, "virtio_net", std::numeric_limits<uint64_t>::max() - 4, 0)};
  const tuner::Observation obs = Build(before, after, agent::Topology{});
  ASSERT_EQ(obs.queues.size(), 1u);
  EXPECT_GT(obs.queues[0].rx_packets, uint64_t{1} << 63);  // kept, not smoothed over
  const absl::Status check = tuner::CheckObservation(obs);
  EXPECT_FALSE(check.ok());
  EXPECT_THAT(check.message(), HasSubstr("eth0: rx_packets"));
  EXPECT_THAT(check.message(), HasSubstr("wrapped counter"));
  EXPECT_FALSE(tuner::Recommend(obs, tuner::PolicyConfig{}).ok());
}

TEST(CountOverTest, RoundsAndSaturatesInsteadOfOverflowing) {
  EXPECT_EQ(CountOver(812744.0, 10), 8127440u);
  EXPECT_EQ(CountOver(0.25, 2), 1u);  // 0.5 rounds away from zero
  EXPECT_EQ(CountOver(1.8446744073709552e18, 10), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(CountOver(1e300, 1), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(CountOver(-3, 1), 0u);
  EXPECT_EQ(CountOver(std::nan(""), 1), 0u);
}

TEST(BuildObservationTest, SocketsArePlacedByTheirDropsOrTheConfiguredPortElseLeftOut) {
  model::Snapshot before = At(0, true), after = At(1, true);
  before.devices = std::vector<procfs::NetDevice>{Device("eth0", 2, "virtio_net", 0, 0),
                                                  Device("eth1", 3, "virtio_net", 0, 0)};
  after.devices = std::vector<procfs::NetDevice>{Device("eth0", 2, "virtio_net", 1000, 0),
                                                 Device("eth1", 3, "virtio_net", 1000, 0)};
  after.bpf->sockets = {
      Socket(1, 7000, 500, 212992, 0.6, 2304),   // no drops, port configured on eth1
      Socket(2, 7001, 400, 425984, 0.9, 2304),   // its own drop records name eth0
      Socket(3, 7002, 300, 212992, 0.7, 2304),   // a drop by port (no cookie) names eth1
      Socket(4, 7003, 200, 212992, 0.5, 2304)};  // nothing tells: left out
  after.bpf->drops = {RcvbuffDrop(2, "eth0", 7001, 2, 30), RcvbuffDrop(3, "eth1", 7002, 0, 5)};
  after.bpf->truesize = {{.ifindex = 3,
                          .device = "eth1",
                          .samples = 100,
                          .bytes = 100 * 2304,
                          .buckets = std::vector<uint64_t>(driver::kTruesizeBuckets, 0)}};
  after.bpf->truesize[0].buckets[11] = 98;  // [2048, 4096)
  after.bpf->truesize[0].buckets[12] = 2;   // [4096, 8192)
  ObservationOptions options;
  options.socket_devices[7000] = "eth1";
  const tuner::Observation obs = Build(before, after, agent::Topology{}, options);
  ASSERT_EQ(obs.queues.size(), 2u);
  const auto names = [](const tuner::QueueObservation& q) {
    std::vector<std::string> out;
    for (const auto& s : q.sockets) out.push_back(s.name);
    return out;
  };
  EXPECT_EQ(obs.queues[0].device, "eth0");
  EXPECT_THAT(names(obs.queues[0]), ElementsAre("udp port 7001 cookie 2"));
  EXPECT_TRUE(obs.queues[0].sockets[0].rcvbuf_locked);  // 425984 is not rmem_default
  EXPECT_EQ(obs.queues[0].sockets[0].drops, 30u);
  EXPECT_DOUBLE_EQ(obs.queues[0].sockets[0].truesize_p99_bytes, 0);  // no histogram on eth0
  EXPECT_EQ(obs.queues[1].device, "eth1");
  // Worst first: drops, then peak fill.
  EXPECT_THAT(names(obs.queues[1]),
              ElementsAre("udp port 7002 cookie 3", "udp port 7000 cookie 1"));
  EXPECT_DOUBLE_EQ(obs.queues[1].sockets[0].truesize_p99_bytes, 8192);  // 99th of 100 in 2^12
  EXPECT_EQ(obs.queues[1].drops.socket, 5u);
}

TEST(BuildObservationTest, ADeviceOfAnotherNamespaceIsObservedWhenItsSocketOverflows) {
  // An emulated NIC's TAP lives in its own namespace: neither the topology nor /sys/class/net of
  // ours lists it, but the drop probe names it (driver/bpf/device_names.h).
  model::Snapshot before = At(0, true), after = At(1, true);
  before.devices = std::vector<procfs::NetDevice>{Device("eth0", 2, "virtio_net", 0, 0)};
  after.devices = std::vector<procfs::NetDevice>{Device("eth0", 2, "virtio_net", 1000, 0)};
  after.bpf->sockets = {Socket(9, 9000, 5000, 24000, 0.99, 768)};
  after.bpf->drops = {RcvbuffDrop(9, "emu0", 9000, 9, 6000)};
  const tuner::Observation obs = Build(before, after, agent::Topology{}, ObservationOptions{});
  ASSERT_EQ(obs.queues.size(), 2u);
  EXPECT_EQ(obs.queues[0].device, "emu0");
  ASSERT_EQ(obs.queues[0].sockets.size(), 1u);
  EXPECT_EQ(obs.queues[0].sockets[0].drops, 6000u);
  EXPECT_EQ(obs.queues[0].drops.socket, 6000u);
  EXPECT_EQ(obs.queues[1].device, "eth0");
  EXPECT_TRUE(obs.queues[1].sockets.empty());
}

// Window 1 of the remembered-socket tests: udp port 9000 (cookie 9) overflows on emu0, which
// its drop records name. The snapshot it ends at, and the options that remember the socket.
struct OverflowedOnEmu0 {
  model::Snapshot seen = At(1, true);
  ObservationOptions options;
};

OverflowedOnEmu0 OverflowOnEmu0() {
  OverflowedOnEmu0 out;
  out.seen.bpf->sockets = {Socket(9, 9000, 5000, 24000, 0.99, 768)};
  out.seen.bpf->drops = {RcvbuffDrop(9, "emu0", 9000, 9, 6000)};
  absl::StatusOr<model::Window> first = model::ComputeWindow(At(0, true), out.seen);
  EXPECT_TRUE(first.ok()) << first.status();
  if (!first.ok()) return out;
  SocketPlacement placement;
  BuildObservation(*first, agent::Topology{}, tuner::HostKnobs{}, ObservationOptions{}, &placement);
  out.options.remembered_sockets = RememberSockets({}, placement, *first);
  return out;
}

TEST(BuildObservationTest, ASocketTheProbesSlotsMissedStaysOnItsDeviceAsLastSeen) {
  const OverflowedOnEmu0 earlier = OverflowOnEmu0();
  const ObservationOptions& options = earlier.options;
  // Window 2: the socket-fill hook was not attached, and nothing lists the socket.
  absl::StatusOr<model::Window> second = model::ComputeWindow(earlier.seen, At(2, true));
  ASSERT_TRUE(second.ok()) << second.status();
  second->probes = {{.hook = "sockfill", .mode = "slotted", .coverage = 0}};
  const tuner::Observation obs =
      BuildObservation(*second, agent::Topology{}, tuner::HostKnobs{}, options);
  ASSERT_EQ(obs.queues.size(), 1u);
  EXPECT_EQ(obs.queues[0].device, "emu0");
  ASSERT_EQ(obs.queues[0].sockets.size(), 1u);
  const tuner::SocketObservation& s = obs.queues[0].sockets[0];
  EXPECT_FALSE(s.arrivals_measured);
  EXPECT_EQ(s.drops, 0u);
  EXPECT_EQ(s.rcvbuf_bytes, 24000u);
  EXPECT_DOUBLE_EQ(s.truesize_mean_bytes, 768);
  EXPECT_DOUBLE_EQ(s.seconds_unseen, 1);
  // The same window with the hook attached throughout lists no socket: it went idle.
  second->probes[0].coverage = 1;
  EXPECT_TRUE(
      BuildObservation(*second, agent::Topology{}, tuner::HostKnobs{}, options).queues.empty());
}

TEST(BuildObservationTest, ASocketReopenedWhereAnotherWasIsOnItsDeviceWithItsDrops) {
  const ObservationOptions options = OverflowOnEmu0().options;
  // Window 2: the application reopened its socket on port 9000 with a smaller buffer. The drop
  // probe's slots saw none of its drops (the namespace's count is one record without a device);
  // only the socket census lists it. Another namespace's socket on port 9000 is no successor.
  model::Window second{.seconds = 1};
  second.sockets = {{.key = {.cookie = 10, .family = kAfInet, .protocol = kUdp, .local_port = 9000},
                     .rcvbuf = 6000,
                     .coverage = {.share = 0},
                     .kernel_drops = 7000},
                    {.key = {.cookie = 11,
                             .family = kAfInet,
                             .protocol = kUdp,
                             .local_port = 9000,
                             .netns_inode = 4026532000},
                     .rcvbuf = 6000,
                     .coverage = {.share = 0},
                     .kernel_drops = 50}};
  second.drops = {{.reason_name = "SOCKET_RCVBUFF",
                   .protocol = 0x0800,
                   .l4_protocol = kUdp,
                   .count = 7050,
                   .per_s = 7050,
                   .coverage = {.share = 0, .scaled_to = "Udp.RcvbufErrors"},
                   .unseen_by_sample = true}};
  second.probes = {{.hook = "sockfill", .mode = "slotted", .coverage = 1}};
  SocketPlacement reopened;
  const tuner::Observation obs =
      BuildObservation(second, agent::Topology{}, tuner::HostKnobs{}, options, &reopened);
  ASSERT_EQ(obs.queues.size(), 1u);
  EXPECT_EQ(obs.queues[0].device, "emu0");
  ASSERT_EQ(obs.queues[0].sockets.size(), 1u);
  EXPECT_EQ(obs.queues[0].sockets[0].name, "udp port 9000 cookie 10");
  EXPECT_EQ(obs.queues[0].sockets[0].drops, 7000u);
  // The device's socket drops are at least its sockets': the guard judges a change by them.
  EXPECT_EQ(obs.queues[0].drops.socket, 7000u);
  EXPECT_THAT(reopened.unplaced, ElementsAre("udp port 9000 cookie 11"));
}

}  // namespace
}  // namespace nictune::observe
