// SPDX-License-Identifier: Apache-2.0
// CarriedSockets and RememberSockets: a socket an earlier window placed stays in the windows whose
// socket-fill slots could have missed it, as last seen with its arrivals not counted, and is let
// go by a watch long enough to have seen its packets, or by the carry limit.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "agent/observe/remembered_sockets.h"
#include "gtest/gtest.h"

namespace nictune::observe {
namespace {

constexpr double kWindowSeconds = 2;
constexpr double kRatePps = 10000;
const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

// A window of kWindowSeconds ending `windows` windows after kStart, whose socket-fill hook was
// attached for `coverage` of it.
model::Window WindowAt(int windows, double coverage) {
  model::Window window{.seconds = kWindowSeconds};
  window.end_unix_ns =
      absl::ToUnixNanos(kStart + windows * absl::Seconds(static_cast<int64_t>(kWindowSeconds)));
  window.probes = {{.hook = "napi", .coverage = 1},
                   {.hook = "sockfill", .mode = "slotted", .coverage = coverage}};
  return window;
}

// The socket as a window that counted its packets placed it on emu0.
PlacedSocket Measured(uint64_t cookie) {
  return PlacedSocket{.device = "emu0",
                      .key = {.cookie = cookie, .family = 2, .protocol = 17, .local_port = 9000},
                      .socket = {.name = "udp port 9000 cookie 7",
                                 .packets = static_cast<uint64_t>(kRatePps * kWindowSeconds),
                                 .arrivals_measured = true,
                                 .truesize_mean_bytes = 768,
                                 .rcvbuf_bytes = 20480,
                                 .peak_fill = 0.94,
                                 .drops = 12,
                                 .drain_gap_s = 0.0004,
                                 .drain_gap_seen_below_s = 0.05,
                                 .open_drain_wait_s = 0.001,
                                 .peak_rate_pps = 10400}};
}

// The memory after window 1 listed `seen` (by default, Measured(7)).
RememberedSockets AfterOneWindow(const PlacedSocket& seen = Measured(7)) {
  return RememberSockets({}, SocketPlacement{.placed = {seen}, .unplaced = {}}, WindowAt(1, 1));
}

TEST(RememberedSocketsTest, AWindowWhoseSlotsMissedTheSocketGetsItAsLastSeen) {
  const RememberedSockets remembered = AfterOneWindow();
  ASSERT_EQ(remembered.size(), 1u);
  EXPECT_DOUBLE_EQ(remembered.at(7).arrivals_per_s, kRatePps);

  const std::vector<PlacedSocket> carried =
      CarriedSockets(remembered, SocketPlacement{}, WindowAt(2, 0), SocketCarryOptions{});
  ASSERT_EQ(carried.size(), 1u);
  const PlacedSocket& p = carried.front();
  EXPECT_TRUE(p.carried);
  EXPECT_EQ(p.device, "emu0");
  EXPECT_EQ(p.key.cookie, 7u);
  // This window's figures are unknown: the plan takes the queue's rate for its arrivals.
  EXPECT_FALSE(p.socket.arrivals_measured);
  EXPECT_EQ(p.socket.packets, 0u);
  EXPECT_EQ(p.socket.drops, 0u);
  EXPECT_EQ(p.socket.peak_fill, 0);
  EXPECT_EQ(p.socket.open_drain_wait_s, 0);
  EXPECT_DOUBLE_EQ(p.socket.seconds_unseen, kWindowSeconds);
  // Its buffer, its charge per packet, its reader and its traffic's shape as last seen.
  EXPECT_EQ(p.socket.name, "udp port 9000 cookie 7");
  EXPECT_EQ(p.socket.rcvbuf_bytes, 20480u);
  EXPECT_EQ(p.socket.truesize_mean_bytes, 768);
  EXPECT_EQ(p.socket.drain_gap_s, 0.0004);
  EXPECT_EQ(p.socket.drain_gap_seen_below_s, 0.05);
  EXPECT_EQ(p.socket.peak_rate_pps, 10400);
}

TEST(RememberedSocketsTest, AnAddressIsPlacedAsTheLatestSocketSeenThere) {
  // Cookie 7 on udp port 9000, last seen in window 1 on emu0; cookie 6 at the same address, seen
  // in window 2 on emu1 (the application reopened it, and its traffic moved).
  RememberedSockets remembered = AfterOneWindow();
  PlacedSocket reopened = Measured(6);
  reopened.device = "emu1";
  remembered[6] = {.placed = reopened,
                   .arrivals_per_s = kRatePps,
                   .seen_at = kStart + absl::Seconds(2 * kWindowSeconds)};
  const RememberedPlaces places = RememberedDevices(remembered);
  EXPECT_EQ(places.by_cookie, (std::map<uint64_t, std::string>{{6, "emu1"}, {7, "emu0"}}));
  EXPECT_EQ(places.by_address,
            (std::map<SocketAddress, std::string>{
                {{.netns_inode = 0, .protocol = 17, .local_port = 9000}, "emu1"}}));
}

TEST(RememberedSocketsTest, AWatchThatWouldHaveSeenItsPacketsAndListedNoneLetsItGo) {
  const RememberedSockets remembered = AfterOneWindow();
  // 10000 pps over 20 ms of watch: 200 packets expected, but slots that short fall between
  // deliveries of tens of packets: a 1% watch judges nothing.
  EXPECT_EQ(CarriedSockets(remembered, {}, WindowAt(2, 0.01), {}).size(), 1u);
  // A quarter of the window, and none listed.
  const double long_enough = 0.25;
  const SocketPlacement none;
  EXPECT_TRUE(CarriedSockets(remembered, none, WindowAt(2, long_enough), {}).empty());
  // Nothing carried, nothing placed: the memory lets it go.
  EXPECT_TRUE(RememberSockets(remembered, none, WindowAt(2, long_enough)).empty());
}

TEST(RememberedSocketsTest, ASocketListedAgainIsNotCarriedButRenewed) {
  const RememberedSockets remembered = AfterOneWindow();
  // Listed by the census alone (its arrivals not counted): renewed, its counted rate kept.
  PlacedSocket census = Measured(7);
  census.socket.arrivals_measured = false;
  census.socket.packets = 3;
  const SocketPlacement placement{.placed = {census}, .unplaced = {}};
  EXPECT_TRUE(CarriedSockets(remembered, placement, WindowAt(2, 0), {}).empty());
  const RememberedSockets next = RememberSockets(remembered, placement, WindowAt(2, 0));
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next.at(7).seen_at, kStart + absl::Seconds(4));
  EXPECT_DOUBLE_EQ(next.at(7).arrivals_per_s, kRatePps);
}

TEST(RememberedSocketsTest, CarriedWindowsKeepTheLastSightingUntilTheCarryLimit) {
  const SocketCarryOptions options{.limit = absl::Seconds(10)};
  RememberedSockets remembered = AfterOneWindow();
  // Windows 2..6 (2 s to 10 s unseen) carry it; window 7 (12 s) is past the limit.
  for (int w = 2; w <= 7; ++w) {
    SocketPlacement placement;
    for (PlacedSocket& p : CarriedSockets(remembered, placement, WindowAt(w, 0), options)) {
      placement.placed.push_back(std::move(p));
    }
    if (w <= 6) {
      ASSERT_EQ(placement.placed.size(), 1u) << "window " << w;
      EXPECT_DOUBLE_EQ(placement.placed.front().socket.seconds_unseen, 2.0 * (w - 1));
    } else {
      EXPECT_TRUE(placement.placed.empty()) << "window " << w;
    }
    remembered = RememberSockets(remembered, placement, WindowAt(w, 0));
  }
  EXPECT_TRUE(remembered.empty());
}

// A quarter of the window at 1 pps expects 0.5 packets: too few to judge a quiet socket by.
TEST(RememberedSocketsTest, ASlowSocketNeedsALongerWatch) {
  PlacedSocket slow = Measured(7);
  slow.socket.packets = 2;
  const RememberedSockets remembered = AfterOneWindow(slow);
  ASSERT_DOUBLE_EQ(remembered.at(7).arrivals_per_s, 1);
  EXPECT_EQ(CarriedSockets(remembered, {}, WindowAt(2, 0.25), {}).size(), 1u);
  EXPECT_TRUE(CarriedSockets(remembered, {}, WindowAt(2, 1), {}).empty());
}

TEST(RememberedSocketsTest, ASocketNeverCountedIsLetGoOnlyByAWholeWindowsWatch) {
  PlacedSocket census_only = Measured(7);
  census_only.socket.arrivals_measured = false;
  const RememberedSockets remembered = AfterOneWindow(census_only);
  ASSERT_EQ(remembered.at(7).arrivals_per_s, 0);
  EXPECT_EQ(CarriedSockets(remembered, {}, WindowAt(2, 0.9), {}).size(), 1u);
  EXPECT_TRUE(CarriedSockets(remembered, {}, WindowAt(2, 1), {}).empty());
}

TEST(RememberedSocketsTest, WithoutTheSocketProbeNothingWasWatched) {
  model::Window window = WindowAt(2, 1);
  EXPECT_DOUBLE_EQ(SocketHookWatchedSeconds(window), kWindowSeconds);
  window.probes.pop_back();
  EXPECT_EQ(SocketHookWatchedSeconds(window), 0);
  EXPECT_EQ(CarriedSockets(AfterOneWindow(), {}, window, {}).size(), 1u);
}

}  // namespace
}  // namespace nictune::observe
