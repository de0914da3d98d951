// SPDX-License-Identifier: Apache-2.0
// PlaceSockets: which device each socket of the fill table receives on, and its drops, from the
// window's drop records, else where an earlier window placed it, else the configured port; also on
// a host with as many drop records as sockets, where the records are looked up per socket rather
// than scanned.
#include <cstdint>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "agent/observe/socket_placement.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tuner/observation_check.h"

namespace nictune::observe {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr uint8_t kUdp = 17;
constexpr uint8_t kTcp = 6;
constexpr uint16_t kAfInet = 2;

model::SocketWindow Socket(uint64_t cookie, uint16_t port, uint8_t protocol = kUdp) {
  return {.key = {.cookie = cookie, .family = kAfInet, .protocol = protocol, .local_port = port},
          .enqueues_per_s = 1000,
          .rcvbuf = 212992,
          .peak_fill = 0.8};
}

model::DropWindow Drop(std::string reason, std::string device, uint16_t port, uint64_t cookie,
                       uint64_t count, uint8_t protocol = kUdp) {
  return {.reason_name = std::move(reason),
          .l4_protocol = protocol,
          .device = std::move(device),
          .local_port = port,
          .socket_cookie = cookie,
          .count = count};
}

std::map<std::string, std::string> DeviceByName(const SocketPlacement& placement) {
  std::map<std::string, std::string> out;
  for (const PlacedSocket& p : placement.placed) out[p.socket.name] = p.device;
  return out;
}

TEST(PlaceSocketsTest, ItsOwnRecordsWinThenItsPortAndProtocolThenTheConfiguredPort) {
  model::Window window{.seconds = 1};
  window.sockets = {Socket(1, 7000), Socket(2, 7001),       Socket(3, 7002),
                    Socket(4, 7003), Socket(5, 7004, kTcp), Socket(6, 0)};
  window.drops = {
      // Cookie 1: eth1 has the most of its records, although a port record says eth0.
      Drop("SOCKET_RCVBUFF", "eth0", 7000, 1, 3), Drop("SOCKET_RCVBUFF", "eth1", 7000, 1, 4),
      Drop("SOCKET_RCVBUFF", "eth0", 7000, 0, 100),
      // Cookie 2: a tie between eth2 and eth1 goes to the first by name.
      Drop("SOCKET_RCVBUFF", "eth2", 7001, 2, 5), Drop("SOCKET_RCVBUFF", "eth1", 7001, 2, 5),
      // Port 7002 without a cookie, in two records for eth3 that add up past eth0's one.
      Drop("SOCKET_RCVBUFF", "eth3", 7002, 0, 2), Drop("NO_SOCKET", "eth3", 7002, 0, 2),
      Drop("SOCKET_RCVBUFF", "eth0", 7002, 0, 3),
      // Port 7004 over UDP says nothing of the TCP socket on 7004; a record without a device
      // says nothing of any.
      Drop("NO_SOCKET", "eth0", 7004, 0, 9), Drop("SOCKET_RCVBUFF", "", 7003, 4, 9)};
  const SocketPlacement placement =
      PlaceSockets(window, tuner::HostKnobs{}, {{7003, "eth5"}, {7004, "eth6"}}, {});
  EXPECT_EQ(DeviceByName(placement),
            (std::map<std::string, std::string>{{"udp port 7000 cookie 1", "eth1"},
                                                {"udp port 7001 cookie 2", "eth1"},
                                                {"udp port 7002 cookie 3", "eth3"},
                                                {"udp port 7003 cookie 4", "eth5"},
                                                {"tcp port 7004 cookie 5", "eth6"}}));
  EXPECT_THAT(placement.unplaced, ElementsAre("udp port 0 cookie 6"));
}

TEST(PlaceSocketsTest, ASocketWithoutDropsKeepsTheDeviceAnEarlierWindowPlacedItOn) {
  // The closed loop: a socket placed on emu0@netns 4 by its drops; tuning stopped them, and the
  // next window has no record naming its device. It stays on emu0@netns 4 (not on the configured
  // port's device), a socket with fresh records goes where they say, and a socket seen for the
  // first time without records is placed by the port map or not at all.
  model::Window window{.seconds = 1};
  window.sockets = {Socket(1, 9000), Socket(2, 9001), Socket(3, 9002), Socket(4, 9003)};
  window.drops = {Drop("SOCKET_RCVBUFF", "eth1", 9001, 2, 7)};
  const RememberedPlaces remembered{
      .by_cookie = {{1, "emu0@netns 4"}, {2, "emu0@netns 4"}, {99, "eth9"}}, .by_address = {}};
  const SocketPlacement placement =
      PlaceSockets(window, tuner::HostKnobs{}, {{9000, "eth5"}, {9002, "eth6"}}, remembered);
  EXPECT_EQ(DeviceByName(placement),
            (std::map<std::string, std::string>{{"udp port 9000 cookie 1", "emu0@netns 4"},
                                                {"udp port 9001 cookie 2", "eth1"},
                                                {"udp port 9002 cookie 3", "eth6"}}));
  EXPECT_THAT(placement.unplaced, ElementsAre("udp port 9003 cookie 4"));
  ASSERT_EQ(placement.placed.size(), 3u);
  for (const PlacedSocket& placed : placement.placed) {
    EXPECT_EQ(placed.socket.name,
              absl::StrCat("udp port ", 8999 + placed.key.cookie, " cookie ", placed.key.cookie));
  }
  EXPECT_EQ(placement.placed[0].socket.drops + placement.placed[2].socket.drops, 0u);
}

TEST(PlaceSocketsTest, ASocketReopenedWhereARememberedOneWasTakesItsDevice) {
  // An application closed its socket on udp port 9000 of namespace 4 and opened another: a new
  // cookie at the same address. Another namespace's, or another protocol's, port 9000 is not it,
  // and this window's own records still rank first.
  model::Window window{.seconds = 1};
  window.sockets = {Socket(5, 9000), Socket(6, 9000), Socket(7, 9000, kTcp), Socket(8, 9001)};
  window.sockets[0].key.netns_inode = 4;
  window.sockets[1].key.netns_inode = 5;
  window.sockets[2].key.netns_inode = 4;
  window.sockets[3].key.netns_inode = 4;
  window.drops = {Drop("SOCKET_RCVBUFF", "eth1", 9001, 8, 7)};
  const RememberedPlaces remembered{
      .by_cookie = {{1, "emu0@netns 4"}, {2, "eth2"}},
      .by_address = {{{.netns_inode = 4, .protocol = kUdp, .local_port = 9000}, "emu0@netns 4"},
                     {{.netns_inode = 4, .protocol = kUdp, .local_port = 9001}, "eth2"}}};
  const SocketPlacement placement = PlaceSockets(window, tuner::HostKnobs{}, {}, remembered);
  EXPECT_EQ(DeviceByName(placement),
            (std::map<std::string, std::string>{{"udp port 9000 cookie 5", "emu0@netns 4"},
                                                {"udp port 9001 cookie 8", "eth1"}}));
  EXPECT_THAT(placement.unplaced, ElementsAre("udp port 9000 cookie 6", "tcp port 9000 cookie 7"));
}

TEST(PlaceSocketsTest, DropsAreTheLargerOfItsRcvbuffRecordsAndItsOwnFullQueueCounts) {
  model::Window window{.seconds = 1};
  window.sockets = {Socket(1, 7000), Socket(2, 7001)};
  window.sockets[1].rcvqueue_full = 40;
  window.sockets[1].udp_queue_failures = 5;
  window.drops = {Drop("SOCKET_RCVBUFF", "eth0", 7000, 1, 30),
                  Drop("SOCKET_RCVBUFF", "", 7000, 1, 12),   // counted, though it names no device
                  Drop("NO_SOCKET", "eth0", 7000, 1, 1000),  // not a full buffer
                  Drop("SOCKET_RCVBUFF", "eth0", 7001, 2, 20)};
  const SocketPlacement placement = PlaceSockets(window, tuner::HostKnobs{}, {}, {});
  ASSERT_EQ(placement.placed.size(), 2u);
  EXPECT_EQ(placement.placed[0].socket.drops, 42u);
  EXPECT_EQ(placement.placed[0].socket.packets, 1042u);  // enqueued + refused
  EXPECT_EQ(placement.placed[1].socket.drops, 45u);      // rcvqueue_full + udp failures
  EXPECT_THAT(placement.unplaced, IsEmpty());
}

TEST(PlaceSocketsTest, ASocketNoProbeCountedInTheWindowHasItsArrivalsUnmeasured) {
  model::Window window{.seconds = 1};
  window.sockets = {Socket(1, 7000), Socket(2, 7001)};
  window.sockets[1].enqueues_per_s = 0;  // its hook was between slots all window
  window.sockets[1].coverage.share = 0;
  window.sockets[1].kernel_drops = 17;
  window.drops = {Drop("SOCKET_RCVBUFF", "eth0", 7000, 1, 3),
                  Drop("SOCKET_RCVBUFF", "eth0", 7001, 2, 17)};
  const SocketPlacement placement = PlaceSockets(window, tuner::HostKnobs{}, {}, {});
  ASSERT_EQ(placement.placed.size(), 2u);
  EXPECT_TRUE(placement.placed[0].socket.arrivals_measured);
  EXPECT_FALSE(placement.placed[1].socket.arrivals_measured);
  EXPECT_EQ(placement.placed[1].socket.packets, 17u);  // its drops: a floor, not its arrivals
}

TEST(PlaceSocketsTest, ASocketsPeakRateIsItsWindowsBusiestIntervalOrUnknown) {
  model::Window window{.seconds = 1};
  window.sockets = {Socket(1, 7000), Socket(2, 7001)};
  window.sockets[0].peak_arrivals_per_s = 9000;  // the tuner window's aggregator set it
  window.drops = {Drop("SOCKET_RCVBUFF", "eth0", 7000, 1, 3),
                  Drop("SOCKET_RCVBUFF", "eth0", 7001, 2, 17)};
  const SocketPlacement placement = PlaceSockets(window, tuner::HostKnobs{}, {}, {});
  ASSERT_EQ(placement.placed.size(), 2u);
  EXPECT_EQ(placement.placed[0].socket.peak_rate_pps, 9000);
  EXPECT_EQ(placement.placed[1].socket.peak_rate_pps, 0);  // unknown: the tuner takes the mean
}

// The probe's longest wait is the tuner's drain gap; a socket read once in hours is held to the
// tuner's bound rather than fail the window's check for every device.
TEST(PlaceSocketsTest, ASocketsDrainGapIsItsLongestWaitHeldToTheTunersBound) {
  model::Window window{.seconds = 1};
  window.sockets = {Socket(1, 7000), Socket(2, 7001)};
  window.sockets[0].longest_drain_gap_s = 0.020;
  window.sockets[1].longest_drain_gap_s = 5 * 3600;
  // A wait still open (a stalled reader), its coverage, held to the same bound.
  window.sockets[0].open_drain_wait_s = 2.5;
  window.sockets[1].open_drain_wait_s = 5 * 3600;
  window.sockets[0].drain_gap_seen_below_s = 0.012;
  window.drops = {Drop("SOCKET_RCVBUFF", "eth0", 7000, 1, 3),
                  Drop("SOCKET_RCVBUFF", "eth0", 7001, 2, 17)};
  const SocketPlacement placement = PlaceSockets(window, tuner::HostKnobs{}, {}, {});
  ASSERT_EQ(placement.placed.size(), 2u);
  EXPECT_EQ(placement.placed[0].socket.drain_gap_s, 0.020);
  EXPECT_EQ(placement.placed[1].socket.drain_gap_s, tuner::kMaxDrainGapSeconds);
  EXPECT_EQ(placement.placed[0].socket.open_drain_wait_s, 2.5);
  EXPECT_EQ(placement.placed[1].socket.open_drain_wait_s, tuner::kMaxDrainGapSeconds);
  EXPECT_EQ(placement.placed[0].socket.drain_gap_seen_below_s, 0.012);
  EXPECT_EQ(placement.placed[1].socket.drain_gap_seen_below_s, 0) << "no probe timed it";
}

TEST(PlaceSocketsTest, TheKernelsOwnDropCountWinsOverTheProbesSample) {
  model::Window window{.seconds = 1};
  window.sockets = {Socket(1, 7000)};
  window.sockets[0].rcvqueue_full = 40;  // a slot's sample, scaled
  window.sockets[0].kernel_drops = 37;   // sock_diag's sk_drops over the window
  window.drops = {Drop("SOCKET_RCVBUFF", "eth0", 7000, 1, 45)};
  const SocketPlacement placement = PlaceSockets(window, tuner::HostKnobs{}, {}, {});
  ASSERT_EQ(placement.placed.size(), 1u);
  EXPECT_EQ(placement.placed[0].device, "eth0");
  EXPECT_EQ(placement.placed[0].socket.drops, 37u);
  EXPECT_EQ(placement.placed[0].socket.packets, 1037u);
}

TEST(PlaceSocketsTest, TenThousandOverflowingSocketsEachGetTheirOwnDeviceAndDrops) {
  constexpr uint64_t kSockets = 10000;
  model::Window window{.seconds = 1};
  for (uint64_t i = 0; i < kSockets; ++i) {
    const auto port = static_cast<uint16_t>(20000 + i);
    window.sockets.push_back(Socket(4096 + i, port));
    window.drops.push_back(
        Drop("SOCKET_RCVBUFF", i % 2 == 0 ? "eth0" : "eth1", port, 4096 + i, i + 1));
  }
  const SocketPlacement placement = PlaceSockets(window, tuner::HostKnobs{}, {}, {});
  ASSERT_EQ(placement.placed.size(), kSockets);
  for (uint64_t i = 0; i < kSockets; ++i) {
    const PlacedSocket& p = placement.placed[i];
    ASSERT_EQ(p.device, i % 2 == 0 ? "eth0" : "eth1") << p.socket.name;
    ASSERT_EQ(p.socket.drops, i + 1) << p.socket.name;
  }
}

}  // namespace
}  // namespace nictune::observe
