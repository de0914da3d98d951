// SPDX-License-Identifier: Apache-2.0
#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/stat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/build_paths.h"

namespace nictune::procfs {
namespace {

using ::testing::HasSubstr;

std::string Fixture(const std::string& name) {
  absl::StatusOr<std::string> text = ReadFile(absl::StrCat(testing_support::FixturesDir(), "/stat/", name));
  EXPECT_TRUE(text.ok()) << text.status();
  return text.value_or("");
}

TEST(ParseProcStat, Recorded6_18TwoCpus) {
  absl::StatusOr<ProcStat> stat = ParseProcStat(Fixture("x86_64_6.18_2cpu.txt"));
  ASSERT_TRUE(stat.ok()) << stat.status();
  EXPECT_EQ(stat->total.cpu, -1);
  EXPECT_EQ(stat->total.user, 7370u);
  EXPECT_EQ(stat->total.system, 6496u);
  EXPECT_EQ(stat->total.idle, 81258u);
  EXPECT_EQ(stat->total.softirq, 177u);
  ASSERT_EQ(stat->cpus.size(), 2u);
  EXPECT_EQ(stat->cpus[1].cpu, 1);
  EXPECT_EQ(stat->cpus[1].iowait, 608u);
  EXPECT_EQ(stat->cpus[1].softirq, 100u);
  EXPECT_EQ(stat->interrupts_total, 184457u);
  EXPECT_TRUE(stat->softirq_line_present);
  EXPECT_EQ(stat->softirqs_total, 141374u);
  EXPECT_EQ(stat->boot_time_seconds, 1795981127u);
}

TEST(ParseProcStat, SevenFieldKernelWithoutSoftirqLine) {
  absl::StatusOr<ProcStat> stat = ParseProcStat(Fixture("x86_64_2.6.9_2cpu_7fields.txt"));
  ASSERT_TRUE(stat.ok()) << stat.status();
  EXPECT_EQ(stat->total.softirq, 456u);
  EXPECT_EQ(stat->total.steal, 0u);
  EXPECT_EQ(stat->total.guest_nice, 0u);
  EXPECT_EQ(stat->cpus[0].irq, 127u);
  EXPECT_EQ(stat->interrupts_total, 114930548u);
  EXPECT_FALSE(stat->softirq_line_present);
  EXPECT_EQ(stat->softirqs_total, 0u);
}

TEST(ParseProcStat, Arm64WithStealTime) {
  absl::StatusOr<ProcStat> stat = ParseProcStat(Fixture("arm64_5.15_8cpu.txt"));
  ASSERT_TRUE(stat.ok()) << stat.status();
  ASSERT_EQ(stat->cpus.size(), 8u);
  EXPECT_EQ(stat->cpus[7].user, 812233u + 7 * 1001u);
  EXPECT_EQ(stat->cpus[7].steal, 1208u);
  uint64_t softirq_sum = 0;
  for (const CpuTimes& cpu : stat->cpus) softirq_sum += cpu.softirq;
  EXPECT_EQ(stat->total.softirq, softirq_sum);
  EXPECT_EQ(stat->softirqs_total, 1933201174u);
}

TEST(ParseProcStat, OfflineCpuIsAbsentAndIdsAreKept) {
  absl::StatusOr<ProcStat> stat = ParseProcStat(Fixture("x86_64_5.4_5cpu_cpu3offline.txt"));
  ASSERT_TRUE(stat.ok()) << stat.status();
  ASSERT_EQ(stat->cpus.size(), 4u);
  EXPECT_EQ(stat->cpus[3].cpu, 4);
  EXPECT_EQ(stat->cpus[3].user, 95u);
}

TEST(ParseProcStat, MalformedLinesNameFileAndLine) {
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"cpu  1 2 3 4 5 6\nintr 1\n", "/s/stat line 1: cpu: expected 7 to 10 tick counts, got 6"},
      {"cpu  1 2 3 4 5 6 7\ncpu0 1 2 x 4 5 6 7\nintr 1\n",
       "/s/stat line 2: cpu0 field 3: \"x\" is not a tick count"},
      {"cpu  1 2 3 4 5 6 7\ncpuX 1 2 3 4 5 6 7\n", "/s/stat line 2: \"cpuX\" is not cpu or cpuN"},
      {"cpu  1 2 3 4 5 6 7\nintr\n", "/s/stat line 2: intr: expected a total, got \"\""},
      {"cpu  1 2 3 4 5 6 7\nintr 5\nsoftirq -1\n",
       "/s/stat line 3: softirq: expected a total, got \"-1\""},
      {"cpu  1 2 3 4 5 6 7\n\nintr 5\n", "/s/stat line 2: empty line"},
      {"cpu  1 2 3 4 5 6 7\ncpu  1 2 3 4 5 6 7\nintr 5\n",
       "/s/stat line 2: second aggregate cpu line"},
      {"cpu0 1 2 3 4 5 6 7\nintr 5\n", "/s/stat: no aggregate \"cpu\" line"},
      {"cpu  1 2 3 4 5 6 7\nctxt 5\n", "/s/stat: no \"intr\" line"},
      {"", "/s/stat: no aggregate \"cpu\" line"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<ProcStat> stat = ParseProcStat(c.text, "/s/stat");
    ASSERT_FALSE(stat.ok()) << c.text;
    EXPECT_THAT(std::string(stat.status().message()), HasSubstr(c.message)) << c.text;
  }
}

TEST(ParseProcStat, FieldsOfAFutureKernelAreTolerated) {
  absl::StatusOr<ProcStat> stat = ParseProcStat("cpu  1 2 3 4 5 6 7 8 9 10 11 12\nintr 3\n");
  ASSERT_TRUE(stat.ok()) << stat.status();
  EXPECT_EQ(stat->total.guest_nice, 10u);
}

TEST(ParseProcStat, LiveFileMatchesOnlineCpuCount) {
  absl::StatusOr<std::string> text = ReadFile("/proc/stat");
  ASSERT_TRUE(text.ok()) << text.status();
  absl::StatusOr<ProcStat> stat = ParseProcStat(*text);
  ASSERT_TRUE(stat.ok()) << stat.status();
  EXPECT_EQ(static_cast<long>(stat->cpus.size()), sysconf(_SC_NPROCESSORS_ONLN));
  EXPECT_GT(stat->total.user + stat->total.system + stat->total.idle, 0u);
  EXPECT_GT(stat->interrupts_total, 0u);
}

}  // namespace
}  // namespace nictune::procfs
