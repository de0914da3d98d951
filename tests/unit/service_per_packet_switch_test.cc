// SPDX-License-Identifier: Apache-2.0
// The per-packet probes' on-demand rule against a fake ProbeSource: on at the first tuner window
// with socket pressure (procfs receive-buffer errors, the drop probe's SOCKET_RCVBUFF, UDP queue
// failures, a socket filled to the threshold), kept on while it lasts, off after the quiet
// windows; a switch the probes refuse is retried at the next window.
#include <vector>

#include "agent/service/per_packet_switch.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::service {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Records every switch it is asked for; fails them while `refuse` is set.
class FakeProbes : public driver::ProbeSource {
 public:
  std::vector<driver::ProbeStatus> Status() const override { return {}; }
  absl::StatusOr<driver::BpfCounters> Read() override { return driver::BpfCounters{}; }
  std::vector<driver::ProbeCost> Cost() const override { return {}; }
  absl::Status SetPerPacketProbes(bool on) override {
    asked.push_back(on);
    if (refuse) return absl::InternalError("BPF sockfill: attach sock:sk_data_ready: EBUSY");
    return absl::OkStatus();
  }

  std::vector<bool> asked;
  bool refuse = false;
};

// Seed 001's overflowing socket as procfs counts it: 4135 of 9613 Mb/s dropped.
model::Window UdpRcvbufErrors() {
  model::Window window;
  window.seconds = 10;
  window.protocol_per_s["Udp.RcvbufErrors"] = 400'000;
  return window;
}

model::Window Quiet() {
  model::Window window;
  window.seconds = 10;
  window.protocol_per_s["Udp.InDatagrams"] = 812'744;  // traffic, but nothing overflows
  return window;
}

model::Window SocketFilledTo(double peak_fill) {
  model::Window window = Quiet();
  model::SocketWindow socket;
  socket.key.local_port = 12865;
  socket.rcvbuf = 212992;
  socket.peak_fill = peak_fill;
  window.sockets.push_back(socket);
  return window;
}

constexpr PerPacketSwitchOptions kOptions{.fill_pressure = 0.5, .quiet_windows = 3};

TEST(PerPacketSwitchTest, QuietIntervalsAndWindowsLeaveTheProbesOff) {
  FakeProbes probes;
  PerPacketSwitch per_packet(probes, kOptions);
  for (int i = 0; i < 5; ++i) {
    EXPECT_FALSE(per_packet.OnInterval(Quiet()));
    EXPECT_FALSE(per_packet.OnTunerWindow(Quiet()));
  }
  EXPECT_FALSE(per_packet.on());
  EXPECT_THAT(probes.asked, IsEmpty());
}

TEST(PerPacketSwitchTest, OnAtTheFirstIntervalWithDropsOffAfterTheQuietWindows) {
  FakeProbes probes;
  PerPacketSwitch per_packet(probes, kOptions);
  // A tuner window with drops does not switch them on: its intervals did, or will.
  EXPECT_FALSE(per_packet.OnTunerWindow(UdpRcvbufErrors()));
  EXPECT_TRUE(per_packet.OnInterval(UdpRcvbufErrors()));
  EXPECT_TRUE(per_packet.on());
  EXPECT_FALSE(per_packet.OnInterval(UdpRcvbufErrors()));  // already on: not asked again
  EXPECT_FALSE(per_packet.OnTunerWindow(UdpRcvbufErrors()));
  EXPECT_FALSE(per_packet.OnTunerWindow(Quiet()));
  EXPECT_FALSE(per_packet.OnInterval(Quiet()));  // quiet intervals do not count
  EXPECT_FALSE(per_packet.OnTunerWindow(Quiet()));
  EXPECT_TRUE(per_packet.on());
  EXPECT_TRUE(per_packet.OnTunerWindow(Quiet()));  // the third quiet window
  EXPECT_FALSE(per_packet.on());
  EXPECT_THAT(probes.asked, ElementsAre(true, false));
}

TEST(PerPacketSwitchTest, PressureInBetweenStartsTheQuietCountAgain) {
  FakeProbes probes;
  PerPacketSwitch per_packet(probes, kOptions);
  per_packet.OnInterval(UdpRcvbufErrors());
  per_packet.OnTunerWindow(Quiet());
  per_packet.OnTunerWindow(Quiet());
  // While on, a socket filled past the threshold is pressure too (the fill probe sees it).
  EXPECT_FALSE(per_packet.OnTunerWindow(SocketFilledTo(0.93)));
  per_packet.OnTunerWindow(Quiet());
  per_packet.OnTunerWindow(Quiet());
  EXPECT_TRUE(per_packet.on());
  EXPECT_TRUE(per_packet.OnTunerWindow(Quiet()));
  EXPECT_THAT(probes.asked, ElementsAre(true, false));
}

TEST(PerPacketSwitchTest, ARefusedSwitchIsTriedAgainAtTheNextInterval) {
  FakeProbes probes;
  probes.refuse = true;
  PerPacketSwitch per_packet(probes, kOptions);
  EXPECT_FALSE(per_packet.OnInterval(UdpRcvbufErrors()));
  EXPECT_FALSE(per_packet.on());
  probes.refuse = false;
  EXPECT_TRUE(per_packet.OnInterval(UdpRcvbufErrors()));
  EXPECT_TRUE(per_packet.on());
  EXPECT_THAT(probes.asked, ElementsAre(true, true));
}

TEST(SocketPressureTest, NamesWhatAsksForTheProbes) {
  EXPECT_EQ(SocketPressure(Quiet(), 0.5), "");
  EXPECT_EQ(SocketPressure(UdpRcvbufErrors(), 0.5), "Udp.RcvbufErrors 400000/s");

  model::Window dropped = Quiet();
  dropped.drops.push_back({.reason_name = "NETFILTER_DROP", .device = "veth0", .count = 9});
  EXPECT_EQ(SocketPressure(dropped, 0.5), "");
  dropped.drops.push_back({.reason_name = "SOCKET_RCVBUFF", .device = "veth0", .count = 1200});
  EXPECT_EQ(SocketPressure(dropped, 0.5), "1200 SOCKET_RCVBUFF drops on veth0");

  model::Window failed = SocketFilledTo(0.2);
  EXPECT_EQ(SocketPressure(failed, 0.5), "");  // below the threshold
  failed.sockets[0].udp_queue_failures = 7;
  EXPECT_EQ(SocketPressure(failed, 0.5), "port 12865: 7 queue failures");

  EXPECT_THAT(SocketPressure(SocketFilledTo(0.5), 0.5), HasSubstr("port 12865 filled to 50%"));
}

}  // namespace
}  // namespace nictune::service
