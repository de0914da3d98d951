// SPDX-License-Identifier: Apache-2.0
// What the emulated NIC puts on its TAP and on its control socket: frames with checksums the
// kernel accepts, flows parsed from their flag text, protocol and counters lines that round-trip.
#include <cstdint>
#include <vector>

#include "driver/emulated/control_protocol.h"
#include "driver/emulated/counters.h"
#include "driver/emulated/flow_spec.h"
#include "driver/emulated/queue_flows.h"
#include "driver/emulated/udp_frame.h"
#include "gtest/gtest.h"

namespace nictune::driver::emulated {
namespace {

TEST(EmulatedUdpFrameTest, HeadersAndChecksumsVerify) {
  const FrameAddresses addresses{.destination_mac = {2, 0, 0, 0, 0, 1},
                                 .source_mac = {2, 0, 0, 0, 0, 2},
                                 .source_ip = 0x0a4d0002,
                                 .destination_ip = 0x0a4d0001,
                                 .source_port = 40000,
                                 .destination_port = 9000};
  for (size_t size : {size_t{50}, size_t{129}, size_t{1514}}) {
    std::vector<uint8_t> frame(size, 0xee);
    BuildUdpFrame(addresses, 7, 0x0102030405060708, frame);
    EXPECT_EQ(frame[12], 0x08);
    EXPECT_EQ(frame[13], 0x00);
    const std::span<const uint8_t> ip(frame.data() + 14, size - 14);
    EXPECT_EQ(ip[0], 0x45);
    EXPECT_EQ((ip[2] << 8) | ip[3], static_cast<int>(size - 14));
    // A correct header sums to 0xffff including its checksum.
    EXPECT_EQ(FoldChecksum(OnesComplementSum(ip.first(20), 0)), 0xffff) << size;
    const std::span<const uint8_t> udp = ip.subspan(20);
    EXPECT_EQ((udp[2] << 8) | udp[3], 9000);
    EXPECT_EQ((udp[4] << 8) | udp[5], static_cast<int>(size - 34));
    uint32_t sum = OnesComplementSum(ip.subspan(12, 8), 0) + 17 + static_cast<uint32_t>(udp.size());
    EXPECT_EQ(FoldChecksum(OnesComplementSum(udp, sum)), 0xffff) << size;
    EXPECT_EQ(udp[8], 0x01);
    EXPECT_EQ(udp[15], 0x08);
  }
}

TEST(EmulatedFlowSpecTest, ParsesFlowsAndNamesWhatIsWrong) {
  auto flows = ParseFlows("port=9000,pps=20000,bytes=128; port=9001,pps=500,on_us=100,off_us=900");
  ASSERT_TRUE(flows.ok()) << flows.status();
  ASSERT_EQ(flows->size(), 2u);
  EXPECT_EQ((*flows)[0].port, 9000);
  EXPECT_DOUBLE_EQ((*flows)[0].rate_pps, 20000);
  EXPECT_EQ((*flows)[1].on_ns, 100'000);
  EXPECT_EQ((*flows)[1].off_ns, 900'000);
  EXPECT_EQ((*flows)[1].frame_bytes, 128);  // the default

  const absl::Status bad_port = ParseFlows("port=70000").status();
  EXPECT_EQ(bad_port.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad_port.message().find("port 70000"), absl::string_view::npos) << bad_port;
  EXPECT_FALSE(ParseFlows("port=9000,bytes=20").ok());
  EXPECT_FALSE(ParseFlows("port=9000,speed=3").ok());
  EXPECT_FALSE(ParseFlows("port=9000,off_us=10").ok());
  EXPECT_FALSE(ParseFlows("pps").ok());
}

TEST(EmulatedFlowSpecTest, FlowsGoToTheirQueueOrSpreadByIndex) {
  auto flows = ParseFlows("port=9000;port=9001;port=9002,queue=0;port=9003");
  ASSERT_TRUE(flows.ok()) << flows.status();
  EXPECT_EQ((*flows)[2].queue, 0);
  EXPECT_EQ((*flows)[3].queue, kQueueByFlowIndex);  // the default
  auto assigned = AssignFlowsToQueues(*flows, 2);
  ASSERT_TRUE(assigned.ok()) << assigned.status();
  EXPECT_EQ(*assigned, (std::vector<std::vector<size_t>>{{0, 2}, {1, 3}}));
  EXPECT_EQ(AssignFlowsToQueues(*flows, 1)->front().size(), 4u);

  const absl::Status beyond = AssignFlowsToQueues(*ParseFlows("port=9000,queue=3"), 2).status();
  EXPECT_EQ(beyond.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(beyond.message().find("queue 3 but the NIC has 2 queues"), absl::string_view::npos)
      << beyond;
  EXPECT_FALSE(AssignFlowsToQueues(*flows, 0).ok());
  EXPECT_FALSE(AssignFlowsToQueues(*flows, kMaxQueues + 1).ok());
  EXPECT_FALSE(ParseFlows("port=9000,queue=16").ok());
  EXPECT_FALSE(ParseFlows("port=9000,queue=-2").ok());
}

TEST(EmulatedControlProtocolTest, RequestsRoundTrip) {
  for (const char* line : {"GET rx_usecs", "GET counters", "SET rx_frames 32", "SET adaptive_rx 1",
                           "SET ring_size 1024", "SET flow_pps 1 2500", "SHUTDOWN",
                           "GET counters queue=3", "SET rx_usecs 100 queue=0"}) {
    auto request = ParseControlRequest(line);
    ASSERT_TRUE(request.ok()) << request.status();
    EXPECT_EQ(FormatControlRequest(*request), line);
  }
  EXPECT_EQ(ParseControlRequest("GET ring_size queue=2")->queue, 2u);
  EXPECT_FALSE(ParseControlRequest("GET ring_size")->queue.has_value());
  for (const char* line : {"", "GET", "GET budget", "SET counters 1", "SET rx_usecs ten",
                           "SET flow_pps x 1", "SHUTDOWN now", "GET counters queue=x",
                           "SET rx_usecs 5 queue=-1", "SET flow_pps 1 2 queue=1", "GET queue=1"}) {
    EXPECT_EQ(ParseControlRequest(line).status().code(), absl::StatusCode::kInvalidArgument)
        << line;
  }
}

TEST(EmulatedControlProtocolTest, ResponsesCarryValuesAndStatuses) {
  EXPECT_EQ(*ParseControlResponse(FormatOkResponse("50") + "\n"), "50");
  const absl::Status sent = absl::InvalidArgumentError("rx_usecs -1 is outside 0..1000000");
  const absl::Status received = ParseControlResponse(FormatErrorResponse(sent)).status();
  EXPECT_EQ(received, sent);
  EXPECT_EQ(ParseControlResponse("HELLO").status().code(), absl::StatusCode::kInternal);
}

TEST(EmulatedCountersTest, FormatParseRoundTripAndMissingFields) {
  EmulatedNicCounters counters{.generated = 10,
                               .delivered = 9,
                               .missed = 1,
                               .interrupts = 3,
                               .rx_usecs = 50,
                               .adaptive_rx = 1,
                               .ring_size = 512,
                               .interval_ns = 64000,
                               .late_ns_max = 12345,
                               .stalls = 2};
  auto parsed = ParseCounters(FormatCounters(counters));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(FormatCounters(*parsed), FormatCounters(counters));
  EXPECT_EQ(parsed->late_ns_max, 12345);
  EXPECT_EQ(parsed->stalls, 2u);
  const absl::Status missing = ParseCounters("generated=1 delivered=1").status();
  EXPECT_NE(missing.message().find("'missed' missing"), absl::string_view::npos) << missing;
  EXPECT_FALSE(ParseCounters("generated=x").ok());
}

TEST(EmulatedCountersTest, ADevicesCountersSumItsQueues) {
  const EmulatedNicCounters first{.generated = 10,
                                  .missed = 1,
                                  .interrupts = 3,
                                  .rx_usecs = 50,
                                  .late_ns_total = 100,
                                  .late_ns_max = 70,
                                  .queues = 2,
                                  .napi_thread = 4321};
  const EmulatedNicCounters second{.generated = 5,
                                   .missed = 0,
                                   .interrupts = 7,
                                   .rx_usecs = 80,
                                   .late_ns_total = 40,
                                   .late_ns_max = 90,
                                   .queues = 2};
  const EmulatedNicCounters sum = SumQueueCounters({first, second});
  EXPECT_EQ(sum.generated, 15u);
  EXPECT_EQ(sum.missed, 1u);
  EXPECT_EQ(sum.interrupts, 10u);
  EXPECT_EQ(sum.late_ns_total, 140);
  EXPECT_EQ(sum.late_ns_max, 90);
  EXPECT_EQ(sum.rx_usecs, 50);  // queue 0's setting, as GET rx_usecs reads it
  EXPECT_EQ(sum.queues, 2u);
  EXPECT_EQ(sum.napi_thread, 0);  // a device has a thread per queue, not one
  EXPECT_EQ(ParseCounters(FormatCounters(sum))->queues, 2u);
}

}  // namespace
}  // namespace nictune::driver::emulated
