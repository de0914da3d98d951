// SPDX-License-Identifier: Apache-2.0
// The one-integer files behind sysctls and sysfs knobs: what parses, what is refused with the path
// in the message, and that a write is the decimal text alone. (The read-back check against a
// kernel that keeps another value cannot be staged with a plain file; the privileged test reads
// every write back through the kernel's own files.)
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "driver/knobs/integer_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::driver::knobs {
namespace {

using ::testing::HasSubstr;

class IntegerFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "nictune-knob-XXXXXX").native();
    const int fd = mkstemp(pattern.data());
    ASSERT_GE(fd, 0);
    close(fd);
    path_ = pattern;
  }
  void TearDown() override { std::filesystem::remove(path_); }

  void Put(const std::string& text) { std::ofstream(path_, std::ios::trunc) << text; }
  std::string Contents() const {
    std::ifstream in(path_);
    std::stringstream all;
    all << in.rdbuf();
    return all.str();
  }

  std::string path_;
};

TEST_F(IntegerFileTest, ReadsTheKernelsFormat) {
  Put("300\n");
  absl::StatusOr<int64_t> value = ReadIntegerFile(path_, "netdev_budget on host");
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, 300);
  Put("-7");
  value = ReadIntegerFile(path_, "x");
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, -7);
  Put("18446744073709551\n");
  value = ReadIntegerFile(path_, "x");
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, 18446744073709551);
}

TEST_F(IntegerFileTest, RefusesWhatIsNotOneDecimalInteger) {
  for (const char* text : {"", "\n", "abc\n", "12 34\n", " 12\n", "12\n\n", "0x10\n",
                           "99999999999999999999\n", "4096\t8192\n"}) {
    Put(text);
    absl::StatusOr<int64_t> value = ReadIntegerFile(path_, "rmem_max on host");
    EXPECT_EQ(value.status().code(), absl::StatusCode::kDataLoss) << "'" << text << "'";
    EXPECT_THAT(std::string(value.status().message()), HasSubstr("rmem_max on host: read "));
    EXPECT_THAT(std::string(value.status().message()), HasSubstr(path_));
  }
}

TEST_F(IntegerFileTest, RefusesAFileLongerThanAnyInteger) {
  Put(std::string(200, '1'));
  absl::StatusOr<int64_t> value = ReadIntegerFile(path_, "x");
  EXPECT_EQ(value.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(value.status().message()), HasSubstr("more than 64 bytes"));
}

TEST_F(IntegerFileTest, AMissingFileIsUnsupportedNamingThePathAndErrno) {
  std::filesystem::remove(path_);
  absl::StatusOr<int64_t> value = ReadIntegerFile(path_, "gro_flush_timeout on veth0");
  EXPECT_EQ(value.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(value.status().message()),
              HasSubstr("gro_flush_timeout on veth0: open " + path_ + ": unsupported"));
  EXPECT_THAT(std::string(value.status().message()), HasSubstr("errno 2"));
  EXPECT_EQ(WriteIntegerFile(path_, 1, "x").code(), absl::StatusCode::kUnimplemented);
}

TEST_F(IntegerFileTest, AWriteIsTheDecimalTextAloneAndIsReadBack) {
  Put("300\n");
  ASSERT_TRUE(WriteIntegerFile(path_, 6000, "netdev_budget on host").ok());
  EXPECT_EQ(Contents(), "6000");
  ASSERT_TRUE(WriteIntegerFile(path_, -12, "x").ok());
  EXPECT_EQ(Contents(), "-12");
  absl::StatusOr<int64_t> value = ReadIntegerFile(path_, "x");
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, -12);
}

TEST_F(IntegerFileTest, ADirectoryIsAnErrorWithItsErrno) {
  const std::string directory = path_ + ".d";
  ASSERT_EQ(mkdir(directory.c_str(), 0700), 0);
  const absl::Status status = WriteIntegerFile(directory, 1, "x");
  rmdir(directory.c_str());
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("errno 21"));  // EISDIR
}

}  // namespace
}  // namespace nictune::driver::knobs
