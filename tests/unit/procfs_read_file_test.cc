// SPDX-License-Identifier: Apache-2.0
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "agent/procfs/read_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::procfs {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(ReadFile, ReadsProcfsFilesThatReportSizeZero) {
  ASSERT_EQ(std::filesystem::file_size("/proc/self/status"), 0u);
  absl::StatusOr<std::string> status = ReadFile("/proc/self/status");
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_THAT(*status, StartsWith("Name:"));
  EXPECT_THAT(*status, HasSubstr(absl::StrCat("\nPid:\t", getpid(), "\n")));
}

TEST(ReadFile, ReadsFilesLargerThanOneBufferWhole) {
  std::string pattern = (std::filesystem::temp_directory_path() / "nictune-read-XXXXXX").native();
  const int fd = mkstemp(pattern.data());
  ASSERT_GE(fd, 0);
  close(fd);
  std::string content;
  for (int i = 0; i < 20000; ++i) absl::StrAppend(&content, i, "\n");
  std::ofstream(pattern) << content;
  absl::StatusOr<std::string> read = ReadFile(pattern);
  std::filesystem::remove(pattern);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_GT(content.size(), 100000u);
  EXPECT_EQ(*read, content);
}

TEST(ReadFile, MissingFileNamesOperationPathAndErrno) {
  absl::StatusOr<std::string> read = ReadFile("/proc/nictune-does-not-exist");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(read.status().message(),
            "open /proc/nictune-does-not-exist: No such file or directory (errno 2)");
}

TEST(ReadFile, ADirectoryIsNotAKernelFile) {
  absl::StatusOr<std::string> read = ReadFile("/proc/self");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(read.status().message(), "read /proc/self: not a regular file");
}

// A FIFO where a kernel file belongs (a fake --proc_root) would block open() and read() forever
// with nobody writing: it is refused at once instead.
TEST(ReadFile, AFifoIsRefusedWithoutBlocking) {
  const std::string dir = (std::filesystem::temp_directory_path() / "nictune-fifo-XXXXXX").native();
  std::string pattern = dir;
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const std::string fifo = pattern + "/interrupts";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const absl::Time start = absl::Now();
  absl::StatusOr<std::string> read = ReadFile(fifo);
  const absl::Duration took = absl::Now() - start;
  std::filesystem::remove_all(pattern);
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(), HasSubstr("not a regular file"));
  EXPECT_LT(took, absl::Seconds(1));
}

TEST(ReadFile, AFileOverTheCapIsRefusedNotRead) {
  std::string pattern = (std::filesystem::temp_directory_path() / "nictune-big-XXXXXX").native();
  const int fd = mkstemp(pattern.data());
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(pattern) << std::string(100000, 'x');
  absl::StatusOr<std::string> read = ReadFile(pattern, 4096);
  std::filesystem::remove(pattern);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(read.status().message(), HasSubstr("larger than 4096 bytes"));
}

TEST(ReadFile, ABadByteInThePathIsEscapedInTheError) {
  // Kernel-name text (driver/kernel_name.h): the error is UTF-8, and the bytes can be told apart.
  absl::StatusOr<std::string> read = ReadFile("/proc/nictune-\xff-gone\\");
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(), HasSubstr("open /proc/nictune-\\xff-gone\\\\:"));
}

TEST(ParseError, NamesFileAndLine) {
  const absl::Status error = ParseError("/proc/net/softnet_stat", 3, "expected 9 columns");
  EXPECT_EQ(error.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(error.message(), "/proc/net/softnet_stat line 3: expected 9 columns");
}

}  // namespace
}  // namespace nictune::procfs
