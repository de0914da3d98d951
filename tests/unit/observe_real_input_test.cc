// SPDX-License-Identifier: Apache-2.0
// The Observation of a window recorded on a real host
// (tests/unit/fixtures/observe/virtio_6.18_2cpu, made by record_host.sh: the procfs/sysfs text
// `nictuned --once --json` reads, two instants 6.3 s apart with a loopback UDP burst into a 4 KiB
// buffer between them), through the same parsers, ComputeWindow and queue map the daemon uses, then
// through tuner::Recommend. BPF was not attached: this is the procfs-only path.
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "agent/collect/queue_map.h"
#include "agent/model/window.h"
#include "agent/observe/host_knobs_reader.h"
#include "agent/observe/observation_builder.h"
#include "agent/procfs/interrupts.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/snmp.h"
#include "agent/procfs/softirqs.h"
#include "agent/procfs/softnet_stat.h"
#include "agent/procfs/stat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"
#include "tuner/observation_check.h"
#include "tuner/recommend.h"

namespace nictune::observe {
namespace {

const std::string kDir = testing_support::FixturesDir() + "/observe/virtio_6.18_2cpu";

std::string Text(const std::string& relative) {
  absl::StatusOr<std::string> text = procfs::ReadFile(kDir + "/" + relative);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : std::string();
}

template <typename T>
T Parsed(absl::StatusOr<T> parsed) {
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *std::move(parsed) : T{};
}

// "eth0 4 virtio_net virtio2": name, ifindex, driver, bus id.
struct RecordedDevice {
  std::string name, driver, bus_id;
  int32_t ifindex = 0;
};

RecordedDevice Device() {
  RecordedDevice d;
  std::istringstream(Text("device")) >> d.name >> d.ifindex >> d.driver >> d.bus_id;
  return d;
}

model::Snapshot Recorded(const std::string& instant) {
  const std::string at = instant + "/";
  model::Snapshot s;
  std::istringstream(Text(at + "monotonic_ns")) >> s.monotonic_ns;
  s.interrupts = Parsed(procfs::ParseInterrupts(Text(at + "interrupts")));
  s.softirqs = Parsed(procfs::ParseSoftirqs(Text(at + "softirqs")));
  s.softnet = Parsed(procfs::ParseSoftnetStat(Text(at + "softnet_stat")));
  s.snmp = Parsed(procfs::ParseSnmp(Text(at + "snmp"), "/proc/net/snmp"));
  s.netstat = Parsed(procfs::ParseSnmp(Text(at + "netstat"), "/proc/net/netstat"));
  s.stat = Parsed(procfs::ParseProcStat(Text(at + "stat")));
  const RecordedDevice d = Device();
  procfs::NetDevice device{
      .name = d.name, .ifindex = d.ifindex, .driver = d.driver, .rx_queues = 1, .tx_queues = 1};
  std::istringstream statistics(Text(at + "statistics"));
  std::string name;
  uint64_t value = 0;
  while (statistics >> name >> value) device.statistics[name] = value;
  s.devices = std::vector<procfs::NetDevice>{device};
  s.sources.push_back({.name = "bpf",
                       .source = model::Source::kBpf,
                       .in_use = false,
                       .detail = "not attached when recorded"});
  return s;
}

agent::Topology RecordedTopology(const model::Snapshot& after) {
  const RecordedDevice d = Device();
  collect::QueueMapInputs inputs{
      .devices = {{.name = d.name, .ifindex = d.ifindex, .bus_id = d.bus_id}},
      .interrupts = *after.interrupts};
  std::istringstream affinity(Text("effective_affinity"));
  uint32_t irq = 0;
  int cpu = 0;
  while (affinity >> irq >> cpu)
    inputs.affinity[irq] = {.smp_affinity = {0, 1}, .effective_affinity = {{cpu}}};
  agent::Topology topology;
  topology.queue_map.bindings = collect::BuildQueueMap(inputs);
  // As ethtool_c and ethtool_g of the fixture show them: virtio_net reports rx-usecs, rx-frames
  // and adaptive-rx (tx is n/a), and a 256-descriptor rx ring.
  collect::DeviceSettings settings{.device = d.name};
  settings.coalesce =
      driver::netlink::CoalesceSettings{.device = d.name,
                                        .source = driver::netlink::kEthtoolNetlinkSource,
                                        .rx_usecs = 0,
                                        .rx_max_frames = 1,
                                        .tx_usecs = 0,
                                        .tx_max_frames = 1,
                                        .use_adaptive_rx = false};
  settings.rings = driver::netlink::RingSettings{.device = d.name, .rx = 256, .rx_max = 256};
  topology.settings = {settings};
  return topology;
}

uint64_t IrqTotal(const model::Snapshot& s, uint32_t irq) {
  for (const auto& line : s.interrupts->lines) {
    if (line.irq == irq) return line.total;
  }
  ADD_FAILURE() << "no irq " << irq;
  return 0;
}

int64_t Udp(const model::Snapshot& s, const char* counter) { return s.snmp->at("Udp").at(counter); }

TEST(ObservationFromRecordedHostTest, VirtioQueueFromProcfsFitsTheTuner) {
  const model::Snapshot before = Recorded("before"), after = Recorded("after");
  absl::StatusOr<model::Window> window = model::ComputeWindow(before, after);
  ASSERT_TRUE(window.ok()) << window.status();
  const agent::Topology topology = RecordedTopology(after);
  absl::StatusOr<HostKnobsReading> host = ReadHostKnobs(kDir + "/proc");
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_TRUE(host->missing.empty());

  const tuner::Observation obs = BuildObservation(*window, topology, host->knobs, {});
  EXPECT_NEAR(absl::ToDoubleSeconds(obs.window),
              static_cast<double>(after.monotonic_ns - before.monotonic_ns) / 1e9, 1e-9);
  EXPECT_EQ(obs.host.rmem_default, host->knobs.rmem_default);
  ASSERT_EQ(obs.queues.size(), 1u);
  const tuner::QueueObservation& q = obs.queues[0];
  EXPECT_EQ(q.device, "eth0");
  EXPECT_EQ(q.queue, 0);  // virtio2-input.0, eth0's one rx queue
  // The input vector (38) is the queue's: not the output (39) or config (37) vector.
  EXPECT_EQ(q.interrupts, IrqTotal(after, 38) - IrqTotal(before, 38));
  const auto stat = [](const model::Snapshot& s, const char* name) {
    return s.devices->front().statistics.at(name);
  };
  EXPECT_EQ(q.rx_packets, stat(after, "rx_packets") - stat(before, "rx_packets"));
  // procfs cannot tell whose buffer overflowed: the host's UDP counters (the loopback burst's).
  EXPECT_EQ(static_cast<int64_t>(q.drops.socket),
            Udp(after, "RcvbufErrors") - Udp(before, "RcvbufErrors"));
  EXPECT_GT(q.drops.socket, 0u);
  EXPECT_EQ(static_cast<int64_t>(q.drops.proto_mem),
            Udp(after, "MemErrors") - Udp(before, "MemErrors"));
  EXPECT_TRUE(q.sockets.empty());  // no per-socket detail without BPF
  EXPECT_GT(q.cpu.idle + q.cpu.user + q.cpu.softirq + q.cpu.hardirq, 0.5);  // cpu 1's split
  EXPECT_TRUE(q.coalesce.rx_usecs_supported);
  EXPECT_TRUE(q.coalesce.rx_frames_supported);
  EXPECT_EQ(q.coalesce.rx_frames, 1u);
  EXPECT_EQ(q.coalesce.rx_ring_size, 256u);

  ASSERT_TRUE(tuner::CheckObservation(obs).ok()) << tuner::CheckObservation(obs);
  absl::StatusOr<std::vector<tuner::Recommendation>> recs =
      tuner::Recommend(obs, tuner::PolicyConfig{});
  ASSERT_TRUE(recs.ok()) << recs.status();
  EXPECT_FALSE(recs->empty());
  for (const tuner::Recommendation& r : *recs) {
    SCOPED_TRACE(r.knob_name + " on " + r.target);
    EXPECT_FALSE(r.formula.empty());
    // A window without traffic on eth0 and without sockets cannot be trusted much.
    EXPECT_LT(r.confidence.value, 1.0);
  }
}

}  // namespace
}  // namespace nictune::observe
