#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
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

TEST(ReadFile, DirectoryFailsAtRead) {
  absl::StatusOr<std::string> read = ReadFile("/proc/self");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().message(), "read /proc/self: Is a directory (errno 21)");
}

TEST(ParseError, NamesFileAndLine) {
  const absl::Status error = ParseError("/proc/net/softnet_stat", 3, "expected 9 columns");
  EXPECT_EQ(error.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(error.message(), "/proc/net/softnet_stat line 3: expected 9 columns");
}

}  // namespace
}  // namespace nictune::procfs
