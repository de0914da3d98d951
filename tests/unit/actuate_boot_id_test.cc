// SPDX-License-Identifier: Apache-2.0
// The boot id the journal is tagged with: the running kernel's, read from procfs.
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "agent/actuate/boot_id.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::actuate {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

TEST(BootIdTest, ReadsTheRunningKernelsIdWithoutItsNewline) {
  absl::StatusOr<std::string> id = ReadBootId();
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_THAT(*id, MatchesRegex("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"));
  absl::StatusOr<std::string> again = ReadBootId();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *id) << "one boot, one id";
}

TEST(BootIdTest, ErrorsNameTheFile) {
  absl::StatusOr<std::string> missing = ReadBootId("/proc/sys/kernel/random/no_such_id");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("/proc/sys/kernel/random/no_such_id"));
  EXPECT_THAT(missing.status().message(), HasSubstr("errno 2"));

  char path[] = "/tmp/nictune_boot_id_XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::close(fd);
  std::ofstream(path) << "two words\n";
  absl::StatusOr<std::string> garbled = ReadBootId(path);
  EXPECT_EQ(garbled.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(garbled.status().message(), HasSubstr(path));
  std::remove(path);
}

}  // namespace
}  // namespace nictune::actuate
