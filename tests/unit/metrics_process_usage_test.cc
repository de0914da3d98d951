// SPDX-License-Identifier: Apache-2.0
// The process_* figures of this very process: a descriptor it opens is counted, the limit is the
// one getrlimit reports, memory is non-zero and resident within virtual, and the start time lies
// between the test binary's start and now.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "agent/metrics/process_usage.h"
#include "gtest/gtest.h"

namespace nictune::metrics {
namespace {

const absl::Time kTestStarted = absl::Now();

TEST(ProcessUsageTest, CountsADescriptorOpenedAndClosedAndReportsTheLimit) {
  absl::StatusOr<ProcessUsage> before = ReadProcessUsage();
  ASSERT_TRUE(before.ok()) << before.status();
  const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  absl::StatusOr<ProcessUsage> during = ReadProcessUsage();
  close(fd);
  absl::StatusOr<ProcessUsage> after = ReadProcessUsage();
  ASSERT_TRUE(during.ok() && after.ok());
  ASSERT_TRUE(before->open_fds && during->open_fds && after->open_fds);
  EXPECT_EQ(*during->open_fds, *before->open_fds + 1);
  EXPECT_EQ(*after->open_fds, *before->open_fds);
  EXPECT_GE(*before->open_fds, 3u);  // stdin, stdout, stderr

  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  EXPECT_EQ(before->max_fds, static_cast<uint64_t>(limit.rlim_cur));
  EXPECT_GT(before->resident_bytes, 0u);
  EXPECT_GE(before->virtual_bytes, before->resident_bytes);
  EXPECT_GE(after->cpu_seconds, before->cpu_seconds);
}

TEST(ProcessUsageTest, StartTimeIsWhenThisProcessStarted) {
  absl::StatusOr<double> started = ReadProcessStartTime();
  ASSERT_TRUE(started.ok()) << started.status();
  // Clock ticks (10 ms) and btime's whole seconds: a second either way.
  EXPECT_LE(*started, static_cast<double>(absl::ToUnixSeconds(kTestStarted)) + 1);
  EXPECT_GE(*started, static_cast<double>(absl::ToUnixSeconds(kTestStarted)) - 60);
}

}  // namespace
}  // namespace nictune::metrics
