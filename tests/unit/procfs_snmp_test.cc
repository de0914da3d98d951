// SPDX-License-Identifier: Apache-2.0
#include <string>

#include "absl/strings/str_cat.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/snmp.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"

namespace nictune::procfs {
namespace {

using ::testing::HasSubstr;

std::string Fixture(const std::string& name) {
  absl::StatusOr<std::string> text = ReadFile(absl::StrCat(testing_support::FixturesDir(), "/", name));
  EXPECT_TRUE(text.ok()) << text.status();
  return text.value_or("");
}

TEST(ParseSnmp, RecordedSnmp6_18) {
  absl::StatusOr<SnmpCounters> counters =
      ParseSnmp(Fixture("snmp/x86_64_6.18.txt"), "/proc/net/snmp");
  ASSERT_TRUE(counters.ok()) << counters.status();
  EXPECT_EQ(counters->size(), 6u);  // Ip Icmp IcmpMsg Tcp Udp UdpLite
  EXPECT_EQ(counters->at("Ip").at("InReceives"), 2055);
  EXPECT_EQ(counters->at("Ip").at("OutTransmits"), 1138);
  EXPECT_EQ(counters->at("Tcp").at("MaxConn"), -1);
  EXPECT_EQ(counters->at("Tcp").at("InSegs"), 2028);
  EXPECT_EQ(counters->at("Udp").at("InDatagrams"), 26);
  EXPECT_EQ(counters->at("Udp").at("MemErrors"), 0);
  EXPECT_EQ(counters->at("Udp").size(), 9u);
  EXPECT_EQ(counters->at("IcmpMsg").at("InType3"), 1);
}

TEST(ParseSnmp, OldKernelHasFewerCountersOfTheSameNames) {
  absl::StatusOr<SnmpCounters> counters =
      ParseSnmp(Fixture("snmp/x86_64_3.10.txt"), "/proc/net/snmp");
  ASSERT_TRUE(counters.ok()) << counters.status();
  const auto& udp = counters->at("Udp");
  EXPECT_EQ(udp.size(), 7u);
  EXPECT_EQ(udp.at("RcvbufErrors"), 81233);
  EXPECT_EQ(udp.count("IgnoredMulti"), 0u);
  EXPECT_EQ(counters->at("Ip").count("OutTransmits"), 0u);
  EXPECT_EQ(counters->at("Tcp").at("MaxConn"), -1);
  EXPECT_EQ(counters->at("Ip").at("InReceives"), 918230455);
}

TEST(ParseSnmp, RecordedNetstat6_18) {
  absl::StatusOr<SnmpCounters> counters =
      ParseSnmp(Fixture("netstat/x86_64_6.18.txt"), "/proc/net/netstat");
  ASSERT_TRUE(counters.ok()) << counters.status();
  EXPECT_EQ(counters->size(), 3u);
  EXPECT_EQ(counters->at("TcpExt").at("TW"), 11);
  EXPECT_EQ(counters->at("TcpExt").at("TCPOrigDataSent"), 80);
  EXPECT_EQ(counters->at("TcpExt").at("TCPRcvCoalesce"), 1261);
  EXPECT_EQ(counters->at("TcpExt").at("TCPAODroppedIcmps"), 0);
  EXPECT_EQ(counters->at("IpExt").at("InOctets"), 65101927);
  EXPECT_EQ(counters->at("MPTcpExt").size(), 76u);
}

TEST(ParseSnmp, Netstat4_19WithoutMptcp) {
  absl::StatusOr<SnmpCounters> counters =
      ParseSnmp(Fixture("netstat/x86_64_4.19.txt"), "/proc/net/netstat");
  ASSERT_TRUE(counters.ok()) << counters.status();
  EXPECT_EQ(counters->count("MPTcpExt"), 0u);
  EXPECT_EQ(counters->at("TcpExt").at("TCPBacklogDrop"), 12);
  EXPECT_EQ(counters->at("TcpExt").count("TCPRcvQDrop"), 0u);
  EXPECT_EQ(counters->at("IpExt").at("InOctets"), 9812233100441);
}

TEST(ParseSnmp, MalformedPairsNameFileAndLine) {
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"", "/n/snmp line 1: empty"},
      {"Udp: InDatagrams NoPorts\n", "/n/snmp line 2: Udp: header line has no value line"},
      {"Udp: InDatagrams NoPorts\nTcp: 1 2\n",
       "/n/snmp line 2: expected the values of \"Udp\", got \"Tcp\""},
      {"Udp: InDatagrams NoPorts\nUdp: 1\n", "/n/snmp line 2: Udp: 2 counter names but 1 values"},
      {"Udp: InDatagrams\nUdp: 1 2\n", "/n/snmp line 2: Udp: 1 counter names but 2 values"},
      {"Udp: InDatagrams NoPorts\nUdp: 1 x\n", "/n/snmp line 2: Udp NoPorts: \"x\" is not an"},
      {"Udp:\nUdp:\n", "/n/snmp line 2: Udp: 0 counter names but 0 values"},
      {"Udp InDatagrams\nUdp 1\n", "/n/snmp line 1: expected \"Section:\""},
      {"Udp: A\nUdp: 1\nUdp: A\nUdp: 2\n", "/n/snmp line 3: Udp: section appears twice"},
      {"Udp: A A\nUdp: 1 2\n", "/n/snmp line 1: Udp: counter A appears twice"},
      {"Udp: A\nUdp: 99999999999999999999\n", "/n/snmp line 2: Udp A: \"99999999999999999999\""},
  };
  for (const Case& c : cases) {
    absl::StatusOr<SnmpCounters> counters = ParseSnmp(c.text, "/n/snmp");
    ASSERT_FALSE(counters.ok()) << c.text;
    EXPECT_THAT(std::string(counters.status().message()), HasSubstr(c.message)) << c.text;
  }
}

TEST(ParseSnmp, LiveFilesParseAndUdpCountersOnlyGrow) {
  for (const char* path : {"/proc/net/snmp", "/proc/net/netstat"}) {
    absl::StatusOr<std::string> text = ReadFile(path);
    ASSERT_TRUE(text.ok()) << text.status();
    absl::StatusOr<SnmpCounters> counters = ParseSnmp(*text, path);
    ASSERT_TRUE(counters.ok()) << counters.status();
    EXPECT_FALSE(counters->empty()) << path;
  }
  auto udp_out = []() -> int64_t {
    absl::StatusOr<std::string> text = ReadFile("/proc/net/snmp");
    EXPECT_TRUE(text.ok());
    absl::StatusOr<SnmpCounters> counters = ParseSnmp(text.value_or(""), "/proc/net/snmp");
    EXPECT_TRUE(counters.ok()) << counters.status();
    return counters.ok() ? counters->at("Udp").at("OutDatagrams") : -1;
  };
  const int64_t before = udp_out();
  EXPECT_GE(udp_out(), before);
  EXPECT_GE(before, 0);
}

}  // namespace
}  // namespace nictune::procfs
