// SPDX-License-Identifier: Apache-2.0
// The kernel's per-socket counters (sock_diag) in a window: drops counted from the window's start,
// exact fill and buffer over the probes' sample, and rows for sockets only the kernel listed.
#include "agent/model/window.h"
#include "agent/model/window_json.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace nictune::model {
namespace {

constexpr uint64_t kSecond = 1'000'000'000;

Snapshot At(uint64_t seconds, std::vector<driver::SocketMemory> sockets, bool truncated = false) {
  Snapshot s;
  s.monotonic_ns = seconds * kSecond;
  s.udp_sockets = driver::SocketCensus{.sockets = std::move(sockets), .truncated = truncated};
  return s;
}

driver::SocketMemory Socket(uint64_t cookie, uint32_t rmem_alloc, uint32_t drops) {
  return {.cookie = cookie,
          .family = 2,
          .protocol = 17,
          .local_port = 9000,
          .netns_inode = 7,
          .rmem_alloc = rmem_alloc,
          .rcvbuf = 8192,
          .drops = drops};
}

TEST(SocketCensusWindowTest, ASocketFullBeforeTheAgentStartedHasItsFillAndTheWindowsDrops) {
  const auto w = ComputeWindow(At(0, {Socket(5, 7488, 3991)}), At(1, {Socket(5, 7488, 5991)}));
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->sockets.size(), 1u);
  const SocketWindow& s = w->sockets[0];
  EXPECT_EQ(s.key.cookie, 5u);
  EXPECT_EQ(s.key.local_port, 9000);
  EXPECT_EQ(s.key.netns_inode, 7u);
  EXPECT_EQ(s.kernel_drops, 2000u);
  EXPECT_DOUBLE_EQ(*s.fill, 7488.0 / 8192.0);
  EXPECT_DOUBLE_EQ(s.peak_fill, 7488.0 / 8192.0);
  EXPECT_EQ(s.rcvbuf, 8192u);
  EXPECT_EQ(s.coverage.share, 0.0);  // no probe saw it
  const nlohmann::json j = WindowToJson(*w);
  EXPECT_EQ(j["sockets"][0]["source"], "sock_diag");
  EXPECT_EQ(j["sockets"][0]["kernel_drops"], 2000);
  EXPECT_EQ(j["sockets"][0]["rmem_alloc"], 7488);
}

TEST(SocketCensusWindowTest, TheKernelsFiguresJoinTheProbesRowOfTheSameSocket) {
  Snapshot a = At(0, {Socket(5, 0, 10)});
  Snapshot b = At(1, {Socket(5, 4096, 110)});
  driver::SocketFill fill{.key = {.cookie = 5, .protocol = 17, .local_port = 9000},
                          .enqueues = 500,
                          .rcvbuf = 4096,
                          .peak_fill = 0.9};
  a.bpf = driver::BpfCounters{};
  b.bpf = driver::BpfCounters{.sockets = {fill}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->sockets.size(), 1u);
  const SocketWindow& s = w->sockets[0];
  EXPECT_DOUBLE_EQ(s.enqueues_per_s, 500.0);  // the probes'
  EXPECT_EQ(s.kernel_drops, 100u);            // the kernel's
  EXPECT_EQ(s.rcvbuf, 8192u);                 // the kernel's, now
  EXPECT_DOUBLE_EQ(s.peak_fill, 0.9);         // the probes' peak is higher than the end's fill
  EXPECT_EQ(WindowToJson(*w)["sockets"][0]["source"], "bpf, sock_diag");
}

TEST(SocketCensusWindowTest, AQuietSocketIsNoRowAndDropsAreUnknownAfterATruncatedStart) {
  // 6 drained and never dropped; 8 new in the window after a start that listed everything; 9
  // missing from a start that was cut short.
  const auto complete = ComputeWindow(At(0, {Socket(6, 0, 0)}),
                                      At(1, {Socket(6, 100, 0), Socket(8, 0, 40)}));
  ASSERT_TRUE(complete.ok()) << complete.status();
  ASSERT_EQ(complete->sockets.size(), 1u);
  EXPECT_EQ(complete->sockets[0].key.cookie, 8u);
  EXPECT_EQ(complete->sockets[0].kernel_drops, 40u);

  const auto truncated =
      ComputeWindow(At(0, {}, /*truncated=*/true), At(1, {Socket(9, 8000, 40)}));
  ASSERT_TRUE(truncated.ok()) << truncated.status();
  ASSERT_EQ(truncated->sockets.size(), 1u);  // full: still a row
  EXPECT_FALSE(truncated->sockets[0].kernel_drops.has_value());
}

TEST(SocketCensusWindowTest, SkDropsWrapsAtTwoToThe32) {
  const auto w =
      ComputeWindow(At(0, {Socket(5, 0, 0xfffffff0u)}), At(1, {Socket(5, 0, 0x10u)}));
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->sockets.size(), 1u);
  EXPECT_EQ(w->sockets[0].kernel_drops, 0x20u);
}

// A socket the fill probe tracked earlier, in a window its gate stayed closed: the kernel's
// figures make the row, and the probe's truesize so far stays on it.
TEST(SocketCensusWindowTest, ASocketThatIsOnlyTheKernelsThisWindowKeepsTheProbesTruesizeSoFar) {
  Snapshot a = At(0, {Socket(5, 7488, 100)});
  Snapshot b = At(1, {Socket(5, 7488, 300)});
  const driver::SocketFill seen_before{.key = {.cookie = 5, .protocol = 17, .local_port = 9000},
                                       .enqueues = 500,
                                       .rcvbuf = 8192,
                                       .truesize_sum = 400 * 832,
                                       .truesize_samples = 400};
  a.bpf = driver::BpfCounters{.sockets = {seen_before}};
  b.bpf = driver::BpfCounters{.sockets = {seen_before}};
  const auto w = ComputeWindow(a, b);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->sockets.size(), 1u);
  EXPECT_EQ(w->sockets[0].kernel_drops, 200u);
  ASSERT_TRUE(w->sockets[0].mean_truesize.has_value());
  EXPECT_DOUBLE_EQ(*w->sockets[0].mean_truesize, 832.0);
  // A socket the probes never measured has none.
  const auto unseen = ComputeWindow(At(0, {Socket(6, 7488, 100)}), At(1, {Socket(6, 7488, 300)}));
  ASSERT_TRUE(unseen.ok()) << unseen.status();
  ASSERT_EQ(unseen->sockets.size(), 1u);
  EXPECT_FALSE(unseen->sockets[0].mean_truesize.has_value());
}

}  // namespace
}  // namespace nictune::model
