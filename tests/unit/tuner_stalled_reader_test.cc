// SPDX-License-Identifier: Apache-2.0
// Stalled readers: of a socket's drops, those that arrived after it filled during its reader's
// open wait are set aside from the socket's and the queue's; the rest stay the setting's.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tuner/stalled_reader.h"

namespace nictune::tuner {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// 10000 pps over a 10 s window into 100 packets' worth of buffer: full in 10 ms.
QueueObservation Queue(uint64_t drops, double open_wait_s) {
  QueueObservation q;
  q.device = "eth0";
  SocketObservation s;
  s.name = "udp 0.0.0.0:5000";
  s.packets = 100000;
  s.truesize_mean_bytes = 2000;
  s.rcvbuf_bytes = 200000;
  s.drops = drops;
  s.open_drain_wait_s = open_wait_s;
  q.sockets.push_back(s);
  q.drops.socket = drops + 7;  // another socket's drops too
  return q;
}

TEST(StalledReaderTest, OnlyWhatArrivedAfterTheFillIsSetAside) {
  // 0.51 s unread, 0.01 s to fill: 5000 arrivals after the fill, of 8000 drops.
  QueueObservation q = Queue(8000, 0.51);
  const std::vector<StalledReader> stalled = SetAsideStalledReaders(q, absl::Seconds(10));
  ASSERT_THAT(stalled, SizeIs(1));
  EXPECT_EQ(stalled[0].drops_set_aside, 5000u);
  EXPECT_DOUBLE_EQ(stalled[0].fill_time_s, 0.01);
  EXPECT_EQ(q.sockets[0].drops, 3000u);
  EXPECT_EQ(q.drops.socket, 3007u);
  EXPECT_THAT(StalledReadersText(stalled),
              HasSubstr("socket udp 0.0.0.0:5000: its reader has not read for 510.00 ms, past "
                        "the 10.00 ms the socket takes to fill and twice the longest pause it came "
                        "back from (0.00 ms): 5000 of its drops are the reader's"));
}

TEST(StalledReaderTest, APauseWithinTheFillTimeOrAnUnknownBufferSetsNothingAside) {
  QueueObservation brief = Queue(8000, 0.009);
  EXPECT_THAT(SetAsideStalledReaders(brief, absl::Seconds(10)), IsEmpty());
  EXPECT_EQ(brief.sockets[0].drops, 8000u);

  QueueObservation unknown = Queue(8000, 2.0);
  unknown.sockets[0].rcvbuf_bytes = 0;
  EXPECT_THAT(SetAsideStalledReaders(unknown, absl::Seconds(10)), IsEmpty());
  EXPECT_EQ(unknown.drops.socket, 8007u);

  // A reader caught 510 ms into the pauses of up to 300 ms it keeps coming back from: not
  // stalled (a bigger buffer holds such pauses), until it is twice as long as those.
  QueueObservation pausing = Queue(8000, 0.51);
  pausing.sockets[0].drain_gap_s = 0.3;
  EXPECT_THAT(SetAsideStalledReaders(pausing, absl::Seconds(10)), IsEmpty());
  pausing.sockets[0].open_drain_wait_s = 0.61;
  EXPECT_THAT(SetAsideStalledReaders(pausing, absl::Seconds(10)), SizeIs(1));

  // A reader stalled since long before the window: the socket was full all of it, and every
  // arrival of the window is the reader's.
  QueueObservation long_stall = Queue(200000, 3600);
  const std::vector<StalledReader> stalled = SetAsideStalledReaders(long_stall, absl::Seconds(10));
  ASSERT_THAT(stalled, SizeIs(1));
  EXPECT_EQ(stalled[0].drops_set_aside, 100000u);
}

}  // namespace
}  // namespace nictune::tuner
