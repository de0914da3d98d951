// SPDX-License-Identifier: Apache-2.0
// Device names that are not UTF-8, against the real nictuned. Linux allows any byte in a device
// name but '/', NUL and whitespace; the test makes, in a namespace of its own, a veth pair named
// "bad\xff0" (a raw 0xFF byte) and "bad\\xff0" (a real backslash and the letters x, f, f), the two
// names most easily confused once escaped. nictuned runs in that namespace (the BPF probes on, so
// that its devices come from the probes too) through several tuner windows, and then:
//   - it is still running, and every answer (/api/v1/snapshot, /api/v1/recommendations,
//     /api/v1/status, /metrics) is 200 and valid UTF-8;
//   - the two devices stay two, each under its own escaped name, in the JSON and on /metrics;
//   - `nictuned --once --json` there exits 0 and prints valid JSON naming both.
#include <signal.h>

#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "agent/http/unix_socket_client.h"
#include "driver/kernel_name.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/build_paths.h"
#include "tests/support/namespace_agent.h"
#include "tests/support/namespace_proc_root.h"
#include "tests/support/netns_host.h"
#include "tests/support/privileges.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace nictune {
namespace {

using ::testing::HasSubstr;
using testing_support::BackgroundProgram;

const std::string kNictuned = testing_support::BinaryDir() + "/agent/nictuned";
const std::string kRawByteName = std::string("bad\xff") + "0";  // bytes b a d 0xFF 0
const std::string kBackslashName = "bad\\xff0";                 // bytes b a d \ x f f 0

std::set<std::string> DeviceNames(const nlohmann::json& report) {
  std::set<std::string> names;
  for (const nlohmann::json& device : report["devices"]) names.insert(device["name"]);
  return names;
}

TEST(OddNamesTest, DeviceNamesThatAreNotUtf8AreCarriedEscapedAndApartAndNeverCrash) {
  if (std::string why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  auto netns = testing_support::NetworkNamespace::Create("nt-oddnames");
  ASSERT_TRUE(netns.ok()) << netns.status();
  ASSERT_TRUE(
      (*netns)
          ->Ip({"link", "add", kRawByteName, "type", "veth", "peer", "name", kBackslashName})
          .ok());
  ASSERT_TRUE((*netns)->Ip({"link", "set", kRawByteName, "up"}).ok());
  ASSERT_TRUE((*netns)->Ip({"link", "set", kBackslashName, "up"}).ok());
  auto proc_root = testing_support::NamespaceProcRoot::Create();
  ASSERT_TRUE(proc_root.ok()) << proc_root.status();
  auto dir = testing_support::TempDir::Create("nictune_odd_names_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string socket = dir->path() + "/agent.sock";
  // The escaped texts, as every output must spell them.
  const std::string raw_text = driver::KernelNameText(kRawByteName);
  const std::string backslash_text = driver::KernelNameText(kBackslashName);
  ASSERT_EQ(raw_text, "bad\\xff0");
  ASSERT_EQ(backslash_text, "bad\\\\xff0");

  auto agent = BackgroundProgram::Start(testing_support::NictunedInNamespace(
      (*netns)->name(), kNictuned, proc_root->path(),
      {"--listen=", "--socket=" + socket, "--state_dir=" + dir->path(), "--interval=200ms",
       "--window=1s"}));
  ASSERT_TRUE(agent.ok()) << agent.status();
  // Three tuner windows: the first one is where the daemon used to abort.
  absl::SleepFor(absl::Seconds(4));
  ASSERT_TRUE(agent->Signal(0).ok()) << "nictuned died:\n" << *agent->OutputSoFar();

  for (const char* target :
       {"/api/v1/snapshot", "/api/v1/recommendations", "/api/v1/status", "/metrics"}) {
    absl::StatusOr<http::Response> reply = http::Call(socket, "GET", target, "", absl::Seconds(5));
    ASSERT_TRUE(reply.ok()) << target << ": " << reply.status();
    EXPECT_EQ(reply->status, 200) << target << ": " << reply->body.substr(0, 300);
    EXPECT_TRUE(driver::IsValidUtf8(reply->body)) << target;
  }
  absl::StatusOr<http::Response> snapshot =
      http::Call(socket, "GET", "/api/v1/snapshot", "", absl::Seconds(5));
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  const std::set<std::string> names = DeviceNames(nlohmann::json::parse(snapshot->body));
  EXPECT_TRUE(names.contains(raw_text)) << snapshot->body.substr(0, 2000);
  EXPECT_TRUE(names.contains(backslash_text)) << snapshot->body.substr(0, 2000);
  absl::StatusOr<http::Response> metrics =
      http::Call(socket, "GET", "/metrics", "", absl::Seconds(5));
  ASSERT_TRUE(metrics.ok()) << metrics.status();
  // The exposition format escapes a backslash once more.
  EXPECT_THAT(metrics->body, HasSubstr("device=\"bad\\\\xff0\""));
  EXPECT_THAT(metrics->body, HasSubstr("device=\"bad\\\\\\\\xff0\""));

  absl::StatusOr<testing_support::ProgramOutput> once = testing_support::RunProgram(
      testing_support::NictunedInNamespace((*netns)->name(), kNictuned, proc_root->path(),
                                           {"--once", "--json", "--interval=200ms"}));
  ASSERT_TRUE(once.ok()) << once.status();
  EXPECT_EQ(once->exit_code, 0) << once->err;
  EXPECT_TRUE(driver::IsValidUtf8(once->out));
  const nlohmann::json report = nlohmann::json::parse(once->out, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << once->out.substr(0, 500);
  EXPECT_TRUE(DeviceNames(report).contains(raw_text));
  EXPECT_TRUE(DeviceNames(report).contains(backslash_text));

  ASSERT_TRUE(agent->Signal(SIGTERM).ok());
  absl::StatusOr<testing_support::ProgramOutput> done = agent->Wait(absl::Seconds(15));
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->exit_code, 0) << done->out;
  std::cout << "devices in the snapshot:";
  for (const std::string& name : names) std::cout << " " << name;
  std::cout << "\n";
}

}  // namespace
}  // namespace nictune
