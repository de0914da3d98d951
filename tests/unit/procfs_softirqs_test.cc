// SPDX-License-Identifier: Apache-2.0
#include <string>

#include "absl/strings/str_cat.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/softirqs.h"
#include "agent/procfs/stat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"

namespace nictune::procfs {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Fixture(const std::string& name) {
  absl::StatusOr<std::string> text = ReadFile(absl::StrCat(testing_support::FixturesDir(), "/softirqs/", name));
  EXPECT_TRUE(text.ok()) << text.status();
  return text.value_or("");
}

const SoftirqRow* Find(const SoftirqTable& table, const std::string& vector) {
  for (const SoftirqRow& row : table.rows) {
    if (row.vector == vector) return &row;
  }
  return nullptr;
}

TEST(ParseSoftirqs, RecordedX86_6_18) {
  absl::StatusOr<SoftirqTable> table = ParseSoftirqs(Fixture("x86_64_6.18_2cpu.txt"));
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_THAT(table->cpu_ids, ElementsAre(0, 1));
  ASSERT_EQ(table->rows.size(), 10u);
  EXPECT_EQ(table->rows.front().vector, "HI");
  EXPECT_EQ(table->rows.back().vector, "RCU");
  const SoftirqRow* net_rx = Find(*table, "NET_RX");
  ASSERT_NE(net_rx, nullptr);
  EXPECT_THAT(net_rx->per_cpu, ElementsAre(864, 1046));
  const SoftirqRow* block = Find(*table, "BLOCK");
  ASSERT_NE(block, nullptr);
  EXPECT_THAT(block->per_cpu, ElementsAre(0, 44170));
}

TEST(ParseSoftirqs, Arm64EightCpus) {
  absl::StatusOr<SoftirqTable> table = ParseSoftirqs(Fixture("arm64_5.15_8cpu.txt"));
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->cpu_ids.size(), 8u);
  const SoftirqRow* net_rx = Find(*table, "NET_RX");
  ASSERT_NE(net_rx, nullptr);
  EXPECT_EQ(net_rx->per_cpu[0], 9923114u);
  EXPECT_EQ(net_rx->per_cpu[7], 8744210u);
}

TEST(ParseSoftirqs, OldKernelVectorNamesAreTakenAsPrinted) {
  absl::StatusOr<SoftirqTable> table = ParseSoftirqs(Fixture("x86_64_3.10_4cpu.txt"));
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_NE(Find(*table, "BLOCK_IOPOLL"), nullptr);
  EXPECT_EQ(Find(*table, "IRQ_POLL"), nullptr);
  const SoftirqRow* net_rx = Find(*table, "NET_RX");
  ASSERT_NE(net_rx, nullptr);
  EXPECT_THAT(net_rx->per_cpu, ElementsAre(5102211, 3420019, 3100223, 3207781));
}

TEST(ParseSoftirqs, MalformedRowsNameFileAndLine) {
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"", "/x/softirqs line 1: empty"},
      {"   CPU0 CPUa\n", "/x/softirqs line 1: expected a header of CPUn columns, got \"CPUa\""},
      {"   CPU0 CPU1\n  HI: 1 2\n  TIMER: 3\n", "/x/softirqs line 3: TIMER: expected 2 per-CPU"},
      {"   CPU0 CPU1\n  HI: 1 2 3\n", "/x/softirqs line 2: HI: expected 2 per-CPU counts, got 3"},
      {"   CPU0\n  HI 1\n", "/x/softirqs line 2: expected \"VECTOR:\" at the start, got \"HI\""},
      {"   CPU0\n  HI: x\n", "/x/softirqs line 2: HI: \"x\" is not a count"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<SoftirqTable> table = ParseSoftirqs(c.text, "/x/softirqs");
    ASSERT_FALSE(table.ok()) << c.text;
    EXPECT_THAT(std::string(table.status().message()), HasSubstr(c.message)) << c.text;
  }
}

// /proc/stat's softirq line sums the same per-CPU counters per vector, so read in the order
// softirqs, stat, softirqs the stat total lies between the two sums.
TEST(ParseSoftirqs, LiveTotalsBracketProcStatSoftirqTotal) {
  auto sum_live_softirqs = []() -> uint64_t {
    absl::StatusOr<std::string> text = ReadFile("/proc/softirqs");
    EXPECT_TRUE(text.ok()) << text.status();
    absl::StatusOr<SoftirqTable> table = ParseSoftirqs(text.value_or(""));
    EXPECT_TRUE(table.ok()) << table.status();
    uint64_t sum = 0;
    if (!table.ok()) return sum;
    for (const SoftirqRow& row : table->rows) {
      for (uint64_t count : row.per_cpu) sum += count;
    }
    return sum;
  };
  const uint64_t before = sum_live_softirqs();
  absl::StatusOr<std::string> stat_text = ReadFile("/proc/stat");
  ASSERT_TRUE(stat_text.ok()) << stat_text.status();
  absl::StatusOr<ProcStat> stat = ParseProcStat(*stat_text);
  ASSERT_TRUE(stat.ok()) << stat.status();
  const uint64_t after = sum_live_softirqs();
  ASSERT_TRUE(stat->softirq_line_present);
  EXPECT_LE(before, stat->softirqs_total);
  EXPECT_LE(stat->softirqs_total, after);
  EXPECT_GT(before, 0u);
}

}  // namespace
}  // namespace nictune::procfs
