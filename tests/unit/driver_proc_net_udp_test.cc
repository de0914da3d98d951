// SPDX-License-Identifier: Apache-2.0
// /proc/net/udp and udp6 as the kernel writes them (udp4_format_sock, udp6_sock_seq_show), and
// what the census' fallback makes of a damaged file: an error naming the file and the line.
#include "driver/proc_net_udp.h"

#include <netinet/in.h>

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::driver {
namespace {

using ::testing::HasSubstr;

constexpr uint32_t kNetns = 4026532288u;

// Two sockets as a 6.18 kernel listed them: port 9000 with 16 KB queued and 1,523 drops, and the
// DNS resolver's port 53 idle.
constexpr char kUdp[] =
    "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
    "inode ref pointer drops            \n"
    "  142: 0200000A:2328 00000000:0000 07 00000000:00004000 00:00000000 00000000     0        0 "
    "51234 2 0000000000000000 1523      \n"
    " 1301: 3500007F:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000   101        0 "
    "20711 2 0000000000000000 0         \n";

constexpr char kUdp6[] =
    "  sl  local_address                         remote_address                        st "
    "tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n"
    "  700: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 07 "
    "00000000:00000300 00:00000000 00000000     0        0 61000 2 0000000000000000 7\n";

TEST(ProcNetUdpTest, ReadsPortQueueInodeAndDropsOfEachSocket) {
  absl::StatusOr<std::vector<SocketMemory>> sockets =
      ParseProcNetUdp(kUdp, "/proc/net/udp", AF_INET, kNetns);
  ASSERT_TRUE(sockets.ok()) << sockets.status();
  ASSERT_EQ(sockets->size(), 2u);
  const SocketMemory& flooded = sockets->at(0);
  EXPECT_EQ(flooded.local_port, 9000);
  EXPECT_EQ(flooded.rmem_alloc, 0x4000u);
  EXPECT_EQ(flooded.drops, 1523u);
  EXPECT_EQ(flooded.inode, 51234u);
  EXPECT_EQ(flooded.rcvbuf, 0u);  // not in the file
  EXPECT_EQ(flooded.family, AF_INET);
  EXPECT_EQ(flooded.protocol, IPPROTO_UDP);
  EXPECT_EQ(flooded.netns_inode, kNetns);
  EXPECT_EQ(flooded.cookie, ProcSocketKey(kNetns, 51234));
  EXPECT_EQ(sockets->at(1).local_port, 53);
  EXPECT_EQ(sockets->at(1).drops, 0u);

  absl::StatusOr<std::vector<SocketMemory>> six =
      ParseProcNetUdp(kUdp6, "/proc/net/udp6", AF_INET6, kNetns);
  ASSERT_TRUE(six.ok()) << six.status();
  ASSERT_EQ(six->size(), 1u);
  EXPECT_EQ(six->at(0).local_port, 8080);
  EXPECT_EQ(six->at(0).rmem_alloc, 0x300u);
  EXPECT_EQ(six->at(0).drops, 7u);
  EXPECT_EQ(six->at(0).family, AF_INET6);
}

TEST(ProcNetUdpTest, AKeyNeverTakenByACookieAndDistinctPerSocketAndNamespace) {
  EXPECT_NE(ProcSocketKey(kNetns, 1) & (uint64_t{1} << 63), 0u);
  EXPECT_NE(ProcSocketKey(kNetns, 1), ProcSocketKey(kNetns, 2));
  EXPECT_NE(ProcSocketKey(kNetns, 1), ProcSocketKey(kNetns + 1, 1));
}

TEST(ProcNetUdpTest, AHeaderAloneIsNoSockets) {
  absl::StatusOr<std::vector<SocketMemory>> none = ParseProcNetUdp(
      std::string(kUdp).substr(0, std::string(kUdp).find('\n') + 1), "/proc/net/udp", AF_INET, 1);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
}

TEST(ProcNetUdpTest, ADamagedFileIsAnErrorNamingTheFileAndTheLine) {
  const std::string header = std::string(kUdp).substr(0, std::string(kUdp).find('\n') + 1);
  const auto error_of = [](const std::string& text) {
    absl::StatusOr<std::vector<SocketMemory>> parsed =
        ParseProcNetUdp(text, "/proc/net/udp", AF_INET, 1);
    EXPECT_FALSE(parsed.ok());
    return parsed.ok() ? std::string() : std::string(parsed.status().message());
  };
  EXPECT_THAT(error_of(""), HasSubstr("/proc/net/udp: empty"));
  EXPECT_THAT(error_of("garbage\n"), HasSubstr("/proc/net/udp line 1: expected the header"));
  EXPECT_THAT(error_of(header + "  1: 0100007F:0035 00000000:0000 07\n"),
              HasSubstr("/proc/net/udp line 2: 4 columns, expected at least 13"));
  EXPECT_THAT(error_of(header + "  1: 0100007F:XYZ 00000000:0000 07 00000000:00000000 00:00000000 "
                                "00000000 0 0 5 2 0 0\n"),
              HasSubstr("line 2: local_address \"0100007F:XYZ\" has no hex port"));
  EXPECT_THAT(error_of(header + "  1: 0100007F:0035 00000000:0000 07 00000000 00:00000000 "
                                "00000000 0 0 5 2 0 0\n"),
              HasSubstr("tx_queue:rx_queue \"00000000\""));
  EXPECT_THAT(error_of(header + "  1: 0100007F:0035 00000000:0000 07 00000000:00000000 "
                                "00:00000000 00000000 0 0 5 2 0 -4\n"),
              HasSubstr("drops \"-4\""));
  EXPECT_THAT(error_of(header + "  1: 0100007F:0035 00000000:0000 07 00000000:00000000 "
                                "00:00000000 00000000 0 0 99999999999 2 0 0\n"),
              HasSubstr("inode \"99999999999\""));
}

}  // namespace
}  // namespace nictune::driver
