// SPDX-License-Identifier: Apache-2.0
// The emulated NIC's counters in the tuner's observation: deltas per window on the device's queue
// (added when the kernel saw none) scaled to the window by the NIC's clock, its moderation
// settings, a baseline from Start() for the first window, nothing without a baseline or after its
// counters went backwards (a restarted NIC), and the kernel's view kept when the control socket
// cannot be read. --emulated_nic values are parsed strictly.
#include "agent/service/emulated_nic_spec.h"
#include "agent/service/emulated_observations.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/emulated_nic_fakes.h"

namespace nictune::service {
namespace {

using driver::emulated::EmulatedNicCounters;
using ::testing::HasSubstr;

class KernelView : public ObservationSource {
 public:
  absl::StatusOr<tuner::Observation> Observe(const model::Window&, uint32_t) override {
    tuner::Observation observation;
    observation.window = absl::Seconds(1);
    tuner::QueueObservation eth0;
    eth0.device = "eth0";
    eth0.interrupts = 111;
    observation.queues.push_back(eth0);
    return observation;
  }
};

EmulatedNicCounters Counters(uint64_t interrupts, uint64_t missed, uint64_t delivered) {
  EmulatedNicCounters counters;
  counters.interrupts = interrupts;
  counters.missed = missed;
  counters.delivered = delivered;
  counters.rx_usecs = 200;
  counters.rx_frames = 32;
  counters.ring_size = 512;
  return counters;
}

const tuner::QueueObservation* Queue(const tuner::Observation& observation,
                                     const std::string& device) {
  for (const tuner::QueueObservation& queue : observation.queues) {
    if (queue.device == device) return &queue;
  }
  return nullptr;
}

TEST(EmulatedObservationsTest, CounterDeltasFeedTheDevicesQueue) {
  KernelView kernel;
  ScriptedCounters emu;
  emu.readings = {Counters(100, 5, 1000), Counters(350, 45, 6000),
                  absl::UnavailableError("connect /run/emu.sock: Connection refused (errno 111)"),
                  Counters(10, 0, 50), Counters(30, 2, 150)};
  EmulatedObservations observations(kernel, {{"emu0", &emu}});
  const model::Window window;

  absl::StatusOr<tuner::Observation> first = observations.Observe(window, 1);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(Queue(*first, "emu0"), nullptr);  // no delta yet

  absl::StatusOr<tuner::Observation> second = observations.Observe(window, 1);
  ASSERT_TRUE(second.ok());
  const tuner::QueueObservation* emu0 = Queue(*second, "emu0");
  ASSERT_NE(emu0, nullptr);
  EXPECT_EQ(emu0->interrupts, 250u);
  EXPECT_EQ(emu0->drops.ring, 40u);
  EXPECT_EQ(emu0->rx_packets, 5000u);
  EXPECT_TRUE(emu0->coalesce.rx_usecs_supported);
  EXPECT_EQ(emu0->coalesce.rx_usecs, 200u);
  EXPECT_EQ(emu0->coalesce.rx_frames, 32u);
  EXPECT_EQ(emu0->coalesce.rx_ring_size, 512u);
  EXPECT_EQ(Queue(*second, "eth0")->interrupts, 111u);  // the kernel's devices untouched

  absl::StatusOr<tuner::Observation> unreadable = observations.Observe(window, 1);
  ASSERT_TRUE(unreadable.ok());
  EXPECT_EQ(Queue(*unreadable, "emu0"), nullptr);

  // Went backwards against the last good reading (the NIC restarted): no delta, a new baseline.
  absl::StatusOr<tuner::Observation> restarted = observations.Observe(window, 1);
  EXPECT_EQ(Queue(*restarted, "emu0"), nullptr);
  absl::StatusOr<tuner::Observation> after = observations.Observe(window, 1);
  ASSERT_NE(Queue(*after, "emu0"), nullptr);
  EXPECT_EQ(Queue(*after, "emu0")->interrupts, 20u);
  EXPECT_EQ(Queue(*after, "emu0")->drops.ring, 2u);
}

EmulatedNicCounters At(absl::Duration elapsed, uint64_t interrupts, uint64_t missed,
                       uint64_t delivered) {
  EmulatedNicCounters counters = Counters(interrupts, missed, delivered);
  counters.elapsed_ns = absl::ToInt64Nanoseconds(elapsed);
  return counters;
}

TEST(EmulatedObservationsTest, StartGivesTheFirstWindowABaseline) {
  KernelView kernel;  // a 1 s window
  ScriptedCounters emu;
  emu.readings = {At(absl::Seconds(10), 100, 5, 1000), At(absl::Seconds(11), 400, 15, 11000)};
  EmulatedObservations observations(kernel, {{"emu0", &emu}});
  observations.Start();
  absl::StatusOr<tuner::Observation> first = observations.Observe(model::Window(), 1);
  ASSERT_TRUE(first.ok());
  const tuner::QueueObservation* emu0 = Queue(*first, "emu0");
  ASSERT_NE(emu0, nullptr);
  EXPECT_EQ(emu0->interrupts, 300u);
  EXPECT_EQ(emu0->drops.ring, 10u);
  EXPECT_EQ(emu0->rx_packets, 10000u);
}

TEST(EmulatedObservationsTest, AnUnreadableNicAtStartGetsItsBaselineAtTheFirstWindow) {
  KernelView kernel;
  ScriptedCounters emu;
  emu.readings = {absl::UnavailableError("connect /run/emu.sock: No such file (errno 2)"),
                  At(absl::Seconds(1), 10, 0, 100), At(absl::Seconds(2), 30, 0, 300)};
  EmulatedObservations observations(kernel, {{"emu0", &emu}});
  observations.Start();
  EXPECT_EQ(Queue(*observations.Observe(model::Window(), 1), "emu0"), nullptr);
  absl::StatusOr<tuner::Observation> second = observations.Observe(model::Window(), 1);
  ASSERT_NE(Queue(*second, "emu0"), nullptr);
  EXPECT_EQ(Queue(*second, "emu0")->interrupts, 20u);
}

TEST(EmulatedObservationsTest, CountsAreScaledFromTheNicsSpanToTheWindow) {
  // Readings 2.5 s apart by the NIC's clock for a 2 s window (the window restarted after the
  // agent's start): 10000 pps is 20000 packets in the window, not 25000.
  tuner::Observation observation;
  observation.window = absl::Seconds(2);
  AddEmulatedCounters("emu0", At(absl::Seconds(3), 1000, 10, 5000),
                      At(absl::Milliseconds(5500), 1875, 35, 30000), observation);
  ASSERT_EQ(observation.queues.size(), 1u);
  EXPECT_EQ(observation.queues[0].interrupts, 700u);
  EXPECT_EQ(observation.queues[0].drops.ring, 20u);
  EXPECT_EQ(observation.queues[0].rx_packets, 20000u);

  // No span by the NIC's clock (an old NIC without elapsed_ns, or the same reading): unscaled.
  tuner::Observation same;
  same.window = absl::Seconds(2);
  AddEmulatedCounters("emu0", At(absl::Seconds(3), 0, 0, 0), At(absl::Seconds(3), 40, 3, 100),
                      same);
  EXPECT_EQ(same.queues[0].interrupts, 40u);
  EXPECT_EQ(same.queues[0].rx_packets, 100u);
}

TEST(EmulatedObservationsTest, AKernelQueueOfTheDeviceGetsTheCountsInPlace) {
  tuner::Observation observation;
  tuner::QueueObservation queue;
  queue.device = "emu0";
  queue.rx_packets = 9000;  // the kernel counted more than the NIC delivered: kept
  observation.queues.push_back(queue);
  AddEmulatedCounters("emu0", Counters(0, 0, 0), Counters(40, 3, 100), observation);
  ASSERT_EQ(observation.queues.size(), 1u);
  EXPECT_EQ(observation.queues[0].interrupts, 40u);
  EXPECT_EQ(observation.queues[0].drops.ring, 3u);
  EXPECT_EQ(observation.queues[0].rx_packets, 9000u);
}

TEST(EmulatedNicSpecTest, ParsesRepeatedAndCommaSeparatedValues) {
  absl::StatusOr<std::vector<EmulatedNicSpec>> specs =
      ParseEmulatedNics({"emu0=/run/a.sock,emu1=/run/b.sock", "emu2=/run/c=d.sock"});
  ASSERT_TRUE(specs.ok()) << specs.status();
  ASSERT_EQ(specs->size(), 3u);
  EXPECT_EQ((*specs)[1].device, "emu1");
  EXPECT_EQ((*specs)[2].socket_path, "/run/c=d.sock");
  for (const char* bad : {"emu0", "=/run/a.sock", "emu0=", "emu0=run/a.sock"}) {
    EXPECT_EQ(ParseEmulatedNics({bad}).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_THAT(ParseEmulatedNics({"emu0=/a", "emu0=/b"}).status().message(),
              HasSubstr("named twice"));

  const char* argv[] = {
      "nictuned", "--emulated_nic=emu0=/a", "--mode=apply", "-emulated_nic", "emu1=/b",
      "--",       "--emulated_nic=emu2=/c"};
  EXPECT_EQ(RepeatedFlagValues(7, const_cast<char**>(argv), "emulated_nic"),
            (std::vector<std::string>{"emu0=/a", "emu1=/b"}));
}

}  // namespace
}  // namespace nictune::service
