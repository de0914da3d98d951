// SPDX-License-Identifier: Apache-2.0
// Each emulated NIC's counters ride along with the host's snapshot, so that the per-interval
// window has the device's interrupts; a NIC whose control socket does not answer is a source not
// in use, with the reason, and the snapshot is the host's alone for it.
#include "agent/model/window.h"
#include "agent/service/emulated_snapshots.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/emulated_nic_fakes.h"

namespace nictune::service {
namespace {

using driver::emulated::EmulatedNicCounters;
using ::testing::HasSubstr;

class HostSnapshots : public SnapshotSource {
 public:
  model::Snapshot Collect() override {
    model::Snapshot snapshot;
    monotonic_ns += 1'000'000'000;
    snapshot.monotonic_ns = monotonic_ns;
    snapshot.sources = {{.name = "/proc/interrupts", .in_use = true}};
    return snapshot;
  }
  void WatchNapiPollers(std::vector<model::NapiPoller> pollers) override {
    watched = std::move(pollers);
  }
  uint64_t monotonic_ns = 0;
  std::vector<model::NapiPoller> watched;
};

EmulatedNicCounters At(int64_t elapsed_ns, uint64_t interrupts) {
  EmulatedNicCounters counters;
  counters.elapsed_ns = elapsed_ns;
  counters.interrupts = interrupts;
  return counters;
}

const model::SourceState* SourceNamed(const model::Snapshot& snapshot, const std::string& name) {
  for (const model::SourceState& s : snapshot.sources) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

TEST(EmulatedNicSnapshotsTest, TheNicsInterruptsReachTheIntervalWindow) {
  HostSnapshots host;
  ScriptedCounters emu;
  emu.readings = {At(1'000'000'000, 100), At(2'000'000'000, 324)};
  EmulatedNicSnapshots snapshots(host, {{"emu0", &emu}});
  const model::Snapshot first = snapshots.Collect();
  const model::Snapshot second = snapshots.Collect();
  ASSERT_EQ(second.emulated_nics.size(), 1u);
  EXPECT_EQ(second.emulated_nics[0].device, "emu0");
  EXPECT_EQ(second.emulated_nics[0].counters.interrupts, 324u);
  const model::SourceState* source = SourceNamed(second, "emulated NIC emu0");
  ASSERT_NE(source, nullptr);
  EXPECT_TRUE(source->in_use);
  EXPECT_EQ(source->source, model::Source::kEmulatedNic);
  EXPECT_THAT(source->detail, HasSubstr("scripted counters"));
  ASSERT_NE(SourceNamed(second, "/proc/interrupts"), nullptr);  // the host's sources stay

  const auto window = model::ComputeWindow(first, second);
  ASSERT_TRUE(window.ok()) << window.status();
  ASSERT_EQ(window->emulated_nics.size(), 1u);
  EXPECT_DOUBLE_EQ(window->emulated_nics[0].interrupts_per_s, 224.0);
}

TEST(EmulatedNicSnapshotsTest, EachQueuesCountersRideAlongOrNoneWhenOneIsMissing) {
  HostSnapshots host;
  ScriptedCounters emu;
  EmulatedNicCounters device = At(1'000'000'000, 30);
  device.queues = 2;
  emu.readings = {device, device};
  EmulatedNicCounters queue1 = At(1'000'000'000, 20);
  queue1.napi_thread = 77;
  emu.queue_readings = {At(1'000'000'000, 10), queue1};
  EmulatedNicSnapshots snapshots(host, {{"emu0", &emu}});
  const model::Snapshot both = snapshots.Collect();
  ASSERT_EQ(both.emulated_nics.size(), 1u);
  ASSERT_EQ(both.emulated_nics[0].queues.size(), 2u);
  EXPECT_EQ(both.emulated_nics[0].queues[1].interrupts, 20u);
  EXPECT_EQ(both.emulated_nics[0].queues[1].napi_thread, 77);
  emu.queue_readings[1] = absl::UnavailableError("queue 1 did not answer");
  const model::Snapshot partial = snapshots.Collect();
  ASSERT_EQ(partial.emulated_nics.size(), 1u);
  EXPECT_TRUE(partial.emulated_nics[0].queues.empty());
  EXPECT_EQ(partial.emulated_nics[0].counters.interrupts, 30u);
}

TEST(EmulatedNicSnapshotsTest, ANicThatDoesNotAnswerIsASourceNotInUseWithTheReason) {
  HostSnapshots host;
  ScriptedCounters emu;
  emu.readings = {absl::UnavailableError("connect /run/emu.sock: Connection refused (errno 111)")};
  EmulatedNicSnapshots snapshots(host, {{"emu0", &emu}});
  const model::Snapshot snapshot = snapshots.Collect();
  EXPECT_TRUE(snapshot.emulated_nics.empty());
  const model::SourceState* source = SourceNamed(snapshot, "emulated NIC emu0");
  ASSERT_NE(source, nullptr);
  EXPECT_FALSE(source->in_use);
  EXPECT_THAT(source->detail, HasSubstr("errno 111"));
}

// The host's collector reads the pollers: the NIC's TAP pollers among them, which the sampler
// names from the NIC's counters.
TEST(EmulatedNicSnapshotsTest, ThePollersToWatchReachTheHostsCollector) {
  HostSnapshots host;
  ScriptedCounters emu;
  EmulatedNicSnapshots snapshots(host, {{"emu0", &emu}});
  snapshots.WatchNapiPollers({{.pid = 900, .device = "emu0", .queue = 0}});
  ASSERT_EQ(host.watched.size(), 1u);
  EXPECT_EQ(host.watched[0].pid, 900u);
  EXPECT_EQ(host.watched[0].device, "emu0");
}

}  // namespace
}  // namespace nictune::service
