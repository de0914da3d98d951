// SPDX-License-Identifier: Apache-2.0
// SIGHUP's flagfile re-read against real abseil flags defined here: reloadable flags change,
// others are only reported, and a bad line changes nothing.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/time/time.h"
#include "agent/service/flagfile_reload.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

ABSL_FLAG(absl::Duration, reload_test_interval, absl::Seconds(1), "test flag");
ABSL_FLAG(std::string, reload_test_mode, "recommend", "test flag");
ABSL_FLAG(bool, reload_test_verbose, false, "test flag");
ABSL_FLAG(std::string, reload_test_listen, "127.0.0.1:9877", "test flag (needs a restart)");

namespace nictune::service {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::set<std::string> kReloadable = {"reload_test_interval", "reload_test_mode",
                                           "reload_test_verbose"};

class FlagfileReloadTest : public ::testing::Test {
 protected:
  FlagfileReloadTest() {
    char dir_template[] = "/tmp/nictune_flagfile_XXXXXX";
    dir_ = mkdtemp(dir_template);
  }
  ~FlagfileReloadTest() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
    absl::SetFlag(&FLAGS_reload_test_interval, absl::Seconds(1));
    absl::SetFlag(&FLAGS_reload_test_mode, "recommend");
    absl::SetFlag(&FLAGS_reload_test_verbose, false);
    absl::SetFlag(&FLAGS_reload_test_listen, "127.0.0.1:9877");
  }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  std::string dir_;
};

TEST_F(FlagfileReloadTest, AppliesReloadableFlagsAndReportsTheRest) {
  const std::string file = Write("nictuned.flags",
                                 "# comment\n\n--reload_test_interval=250ms\n"
                                 "  --reload_test_mode=observe  \n--reload_test_verbose\n"
                                 "--reload_test_listen=127.0.0.1:9999\n");
  auto reload = ReloadFlagfiles({file}, kReloadable);
  ASSERT_TRUE(reload.ok()) << reload.status();
  EXPECT_EQ(absl::GetFlag(FLAGS_reload_test_interval), absl::Milliseconds(250));
  EXPECT_EQ(absl::GetFlag(FLAGS_reload_test_mode), "observe");
  EXPECT_TRUE(absl::GetFlag(FLAGS_reload_test_verbose));
  EXPECT_EQ(absl::GetFlag(FLAGS_reload_test_listen), "127.0.0.1:9877");  // needs a restart
  EXPECT_THAT(reload->needs_restart, ElementsAre("reload_test_listen"));
  ASSERT_EQ(reload->applied.size(), 3u);
  EXPECT_EQ(reload->applied[0].name, "reload_test_interval");
  EXPECT_EQ(reload->applied[0].old_value, "1s");
  EXPECT_EQ(reload->applied[0].new_value, "250ms");

  RevertFlagChanges(reload->applied);
  EXPECT_EQ(absl::GetFlag(FLAGS_reload_test_interval), absl::Seconds(1));
  EXPECT_EQ(absl::GetFlag(FLAGS_reload_test_mode), "recommend");
  EXPECT_FALSE(absl::GetFlag(FLAGS_reload_test_verbose));
}

TEST_F(FlagfileReloadTest, UnchangedValuesAreNeitherAppliedNorReported) {
  const std::string file =
      Write("same.flags", "--reload_test_interval=1000ms\n--reload_test_listen=127.0.0.1:9877\n");
  auto reload = ReloadFlagfiles({file}, kReloadable);
  ASSERT_TRUE(reload.ok()) << reload.status();
  EXPECT_TRUE(reload->applied.empty());
  EXPECT_TRUE(reload->needs_restart.empty());
}

TEST_F(FlagfileReloadTest, ABadValueChangesNothingAndNamesFileLineAndFlag) {
  const std::string file =
      Write("bad.flags", "--reload_test_mode=observe\n--reload_test_interval=fast\n");
  auto reload = ReloadFlagfiles({file}, kReloadable);
  ASSERT_FALSE(reload.ok());
  EXPECT_THAT(std::string(reload.status().message()),
              HasSubstr(file + " line 2: --reload_test_interval=fast"));
  EXPECT_EQ(absl::GetFlag(FLAGS_reload_test_mode), "recommend");  // line 1 undone
}

TEST_F(FlagfileReloadTest, UnknownFlagsAndMissingFilesAreErrors) {
  const std::string file = Write("unknown.flags", "--no_such_flag_anywhere=1\n");
  auto unknown = ReloadFlagfiles({file}, kReloadable);
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(std::string(unknown.status().message()),
              HasSubstr("line 1: unknown flag --no_such_flag_anywhere"));
  auto missing = ReloadFlagfiles({dir_ + "/absent.flags"}, kReloadable);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("absent.flags"));
}

TEST(FlagfilesFromArgsTest, FindsEveryFormAbseilAccepts) {
  const char* args[] = {"nictuned",      "--flagfile=/etc/a.flags,/etc/b.flags",
                        "--interval=1s", "-flagfile",
                        "/etc/c.flags",  "--flagfile_not=1"};
  std::vector<char*> argv;
  for (const char* arg : args) argv.push_back(const_cast<char*>(arg));
  EXPECT_THAT(FlagfilesFromArgs(static_cast<int>(argv.size()), argv.data()),
              ElementsAre("/etc/a.flags", "/etc/b.flags", "/etc/c.flags"));
}

}  // namespace
}  // namespace nictune::service
