// SPDX-License-Identifier: Apache-2.0
// An interval's drops per device, as `nictune top` shows them: the drop probe's records, and the
// kernel's own count of the drops of the sockets placed on a device where the probe's slots missed
// them; the sockets keep their devices from one interval to the next (IntervalSocketPlaces).
#include "agent/device_drops.h"

#include <cstdint>
#include <string>

#include "agent/observe/interval_socket_places.h"
#include "agent/topology.h"
#include "agent/window_report.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace nictune::agent {
namespace {

using ::testing::IsEmpty;

constexpr uint8_t kUdp = 17;
constexpr uint32_t kNetns = 4026532173;

model::SocketWindow Socket(uint64_t cookie, uint64_t kernel_drops) {
  return {.key = {.cookie = cookie, .protocol = kUdp, .local_port = 9000, .netns_inode = kNetns},
          .rcvbuf = 212992,
          .kernel_drops = kernel_drops};
}

model::DropWindow Drop(std::string device, std::string reason, uint64_t cookie, uint64_t count) {
  return {.reason_name = std::move(reason),
          .l4_protocol = kUdp,
          .device = std::move(device),
          .local_port = 9000,
          .socket_cookie = cookie,
          .count = count,
          .netns_inode = kNetns};
}

// The namespace's count when the probe's slots saw none of its drops: no device, no socket.
model::DropWindow UnseenDrops(uint64_t count) {
  model::DropWindow d = Drop("", "SOCKET_RCVBUFF", 0, count);
  d.unseen_by_sample = true;
  return d;
}

std::string DeviceOf(const observe::SocketDevices& devices, uint64_t cookie) {
  const auto placed = devices.find(cookie);
  return placed == devices.end() ? "" : placed->second;
}

// The try demo's intervals: emu0's socket overflows at 8000 drops/s, and the drop probe's slots
// see some intervals and miss others.
TEST(IntervalSocketPlacesTest, ASocketKeepsItsDeviceThroughIntervalsTheDropProbeMissed) {
  observe::IntervalSocketPlaces places;
  model::Window seen{.seconds = 1};
  seen.sockets = {Socket(1, 8000)};
  seen.drops = {Drop("emu0", "SOCKET_RCVBUFF", 1, 3400)};
  EXPECT_EQ(DeviceOf(places.Place(seen), 1), "emu0");

  model::Window missed{.seconds = 1};
  missed.sockets = {Socket(1, 8000)};
  missed.drops = {UnseenDrops(8000)};
  EXPECT_EQ(DeviceOf(places.Place(missed), 1), "emu0");

  // Reopened: a new cookie where the socket was.
  model::Window reopened{.seconds = 1};
  reopened.sockets = {Socket(2, 8000)};
  reopened.drops = {UnseenDrops(8000)};
  EXPECT_EQ(DeviceOf(places.Place(reopened), 2), "emu0");

  // Closed for an interval: let go, and a socket opened at its address later is not placed.
  EXPECT_THAT(places.Place(model::Window{.seconds = 1}), IsEmpty());
  EXPECT_THAT(places.Place(reopened), IsEmpty());
}

TEST(DeviceDropsTest, TheKernelsCountOfPlacedSocketsFillsInWhatTheRecordsMissed) {
  model::Window window{.seconds = 2};
  window.sockets = {Socket(1, 100), Socket(2, 0)};
  window.drops = {Drop("emu0", "SOCKET_RCVBUFF", 1, 30), Drop("emu0", "NO_SOCKET", 0, 6),
                  Drop("eth0", "NETFILTER_DROP", 0, 4), UnseenDrops(70)};
  const observe::SocketDevices devices = observe::DevicesOfSockets(window, {}, {});
  const std::vector<DeviceDrops> drops = DropsPerDevice(window, devices);
  ASSERT_EQ(drops.size(), 2u);
  // emu0: its records (30 + 6), and the 70 of socket 1's 100 that no record named.
  EXPECT_EQ(drops[0].device, "emu0");
  EXPECT_DOUBLE_EQ(drops[0].per_s, (36.0 + 70.0) / 2);
  EXPECT_DOUBLE_EQ(drops[0].placed_sockets_per_s, 50.0);
  EXPECT_EQ(drops[1].device, "eth0");
  EXPECT_DOUBLE_EQ(drops[1].per_s, 2.0);
  EXPECT_DOUBLE_EQ(drops[1].placed_sockets_per_s, 0.0);

  // Records that saw more than the kernel's count of the placed sockets (a sample scaled up)
  // stand as they are.
  window.drops[0].count = 150;
  EXPECT_DOUBLE_EQ(DropsPerDevice(window, devices)[0].per_s, 156.0 / 2);
}

TEST(DeviceDropsTest, TheWindowReportNamesEachPlacedSocketsDeviceAndEachDevicesDrops) {
  model::Window window{.seconds = 1};
  window.sockets = {Socket(1, 8000), Socket(3, 0)};
  window.sockets[1].key.local_port = 9100;
  window.drops = {UnseenDrops(8000)};
  const observe::SocketDevices devices =
      observe::DevicesOfSockets(window, {}, {.by_cookie = {{1, "emu0"}}, .by_address = {}});
  const nlohmann::json report = WindowReport(window, Topology{}, devices);
  ASSERT_EQ(report["sockets"].size(), 2u);
  EXPECT_EQ(report["sockets"][0]["device"], "emu0");
  EXPECT_FALSE(report["sockets"][1].contains("device"));
  ASSERT_EQ(report["device_drops"].size(), 1u);
  EXPECT_EQ(report["device_drops"][0]["device"], "emu0");
  EXPECT_DOUBLE_EQ(report["device_drops"][0]["per_s"].get<double>(), 8000.0);
}

}  // namespace
}  // namespace nictune::agent
