// SPDX-License-Identifier: Apache-2.0
#include <string>

#include "absl/strings/str_cat.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/softnet_stat.h"
#include "agent/procfs/stat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"

namespace nictune::procfs {
namespace {

using ::testing::HasSubstr;

std::string Fixture(const std::string& name) {
  absl::StatusOr<std::string> text =
      ReadFile(absl::StrCat(testing_support::FixturesDir(), "/softnet_stat/", name));
  EXPECT_TRUE(text.ok()) << text.status();
  return text.value_or("");
}

TEST(ParseSoftnetStat, Recorded6_18FifteenColumns) {
  absl::StatusOr<std::vector<SoftnetRow>> rows =
      ParseSoftnetStat(Fixture("x86_64_6.18_2cpu_15col.txt"));
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 2u);
  const SoftnetRow& cpu1 = (*rows)[1];
  EXPECT_EQ(cpu1.columns, 15);
  EXPECT_EQ(cpu1.processed, 0x7fcu);
  EXPECT_EQ(cpu1.cpu, 1u);
  EXPECT_TRUE(cpu1.cpu_from_kernel);
  EXPECT_EQ(cpu1.received_rps, 0u);
  EXPECT_EQ(cpu1.flow_limit_count, 0u);
  EXPECT_EQ(cpu1.backlog_len, 0u);
  EXPECT_EQ(cpu1.input_queue_len, 0u);
  EXPECT_EQ(cpu1.process_queue_len, 0u);
  EXPECT_EQ((*rows)[0].processed, 0xdu);
  EXPECT_EQ((*rows)[0].cpu, 0u);
}

TEST(ParseSoftnetStat, FiveTenThirteenColumnsTellOfflineCpusApart) {
  absl::StatusOr<std::vector<SoftnetRow>> rows =
      ParseSoftnetStat(Fixture("x86_64_5.10_4cpu_cpu2offline_13col.txt"));
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 3u);
  const SoftnetRow& third = (*rows)[2];
  EXPECT_EQ(third.cpu, 3u);  // CPU2 is offline: the third row is CPU3
  EXPECT_TRUE(third.cpu_from_kernel);
  EXPECT_EQ(third.processed, 0x01a35c9du);
  EXPECT_EQ(third.dropped, 0x2db94u);
  EXPECT_EQ(third.time_squeeze, 1u);
  EXPECT_EQ(third.received_rps, 0x8ee93au);
  EXPECT_EQ((*rows)[1].backlog_len, 5u);
  EXPECT_FALSE(third.input_queue_len.has_value());
  EXPECT_FALSE(third.process_queue_len.has_value());
}

TEST(ParseSoftnetStat, FourNineteenElevenColumnsWithWrapAboutToHappen) {
  absl::StatusOr<std::vector<SoftnetRow>> rows =
      ParseSoftnetStat(Fixture("x86_64_4.19_8cpu_11col.txt"));
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 8u);
  EXPECT_EQ((*rows)[1].dropped, 0x6283u);
  EXPECT_EQ((*rows)[2].flow_limit_count, 3u);
  EXPECT_EQ((*rows)[7].processed, 0xfffffff0u);
  EXPECT_EQ((*rows)[7].cpu, 7u);
  EXPECT_FALSE((*rows)[7].cpu_from_kernel);
  EXPECT_FALSE((*rows)[7].backlog_len.has_value());
}

TEST(ParseSoftnetStat, ThreeTenHasReceivedRpsOnly) {
  absl::StatusOr<std::vector<SoftnetRow>> rows =
      ParseSoftnetStat(Fixture("x86_64_3.10_4cpu_10col.txt"));
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 4u);
  EXPECT_EQ((*rows)[1].dropped, 7u);
  EXPECT_EQ((*rows)[1].received_rps, 0x2a1u);
  EXPECT_FALSE((*rows)[1].flow_limit_count.has_value());
}

TEST(ParseSoftnetStat, TwoSixThirtyTwoNineColumnsKeepCpuCollision) {
  absl::StatusOr<std::vector<SoftnetRow>> rows =
      ParseSoftnetStat(Fixture("x86_64_2.6.32_4cpu_9col.txt"));
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 4u);
  EXPECT_EQ((*rows)[0].processed, 0x2921884fu);
  EXPECT_EQ((*rows)[0].time_squeeze, 0x255au);
  EXPECT_EQ((*rows)[0].cpu_collision, 3u);
  EXPECT_EQ((*rows)[1].dropped, 0x12u);
  EXPECT_FALSE((*rows)[0].received_rps.has_value());
  EXPECT_EQ((*rows)[3].cpu, 3u);
}

TEST(ParseSoftnetStat, ColumnsOfAFutureKernelAreTolerated) {
  const std::string row =
      "0000000a 00000001 00000002 00000000 00000000 00000000 00000000 "
      "00000000 00000000 00000003 00000004 00000005 00000006 00000007 "
      "00000008 0000ffff\n";
  absl::StatusOr<std::vector<SoftnetRow>> rows = ParseSoftnetStat(row);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ((*rows)[0].columns, 16);
  EXPECT_EQ((*rows)[0].cpu, 6u);
  EXPECT_EQ((*rows)[0].process_queue_len, 8u);
}

TEST(ParseSoftnetStat, MalformedRowsNameFileAndLine) {
  const std::string nine =
      "00000001 00000000 00000000 00000000 00000000 00000000 00000000 "
      "00000000 00000000";
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"", "/p/softnet_stat line 1: empty"},
      {"00000001 00000002 00000003 00000000 00000000 00000000 00000000\n",
       "/p/softnet_stat line 1: expected at least 9 hex columns, got 7"},
      {nine + "\n" + nine + " 0000000a\n",
       "/p/softnet_stat line 2: has 10 hex columns but line 1 has 9"},
      {nine + "\n   \n", "/p/softnet_stat line 2: expected at least 9 hex columns, got 0"},
      {nine + "\n00000001 0000000g" + nine.substr(17) + "\n",
       "/p/softnet_stat line 2: column 2: \"0000000g\" is not a hex u32"},
      {"100000000" + nine.substr(8) + "\n",
       "/p/softnet_stat line 1: column 1: \"100000000\" is not a hex u32"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<SoftnetRow>> rows = ParseSoftnetStat(c.text, "/p/softnet_stat");
    ASSERT_FALSE(rows.ok()) << c.text;
    EXPECT_THAT(std::string(rows.status().message()), HasSubstr(c.message)) << c.text;
  }
}

TEST(ParseSoftnetStat, LiveFileHasOneRowPerOnlineCpu) {
  absl::StatusOr<std::string> text = ReadFile("/proc/net/softnet_stat");
  ASSERT_TRUE(text.ok()) << text.status();
  absl::StatusOr<std::vector<SoftnetRow>> rows = ParseSoftnetStat(*text);
  ASSERT_TRUE(rows.ok()) << rows.status();
  absl::StatusOr<std::string> stat_text = ReadFile("/proc/stat");
  ASSERT_TRUE(stat_text.ok()) << stat_text.status();
  absl::StatusOr<ProcStat> stat = ParseProcStat(*stat_text);
  ASSERT_TRUE(stat.ok()) << stat.status();
  ASSERT_EQ(rows->size(), stat->cpus.size());
  for (size_t i = 0; i < rows->size(); ++i) {
    EXPECT_EQ((*rows)[i].cpu, static_cast<uint32_t>(stat->cpus[i].cpu));
  }
}

}  // namespace
}  // namespace nictune::procfs
