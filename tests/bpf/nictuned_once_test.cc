// SPDX-License-Identifier: Apache-2.0
// nictuned --once --json and nictuned --check as a person runs them: as root with the probes, and
// as an unprivileged user on procfs alone, saying why BPF is unavailable (and, asked for apply
// mode, that it cannot run).
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/build_paths.h"
#include "tests/support/privileges.h"

namespace nictune {
namespace {

using ::testing::HasSubstr;

const std::string kNictuned = testing_support::BinaryDir() + "/agent/nictuned";
// nobody, without any capability: as a person runs it from an unprivileged shell.
const std::string kUnprivileged =
    "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all ";

struct Output {
  int exit_code = -1;
  std::string out;
};

Output RunCommand(const std::string& command) {
  Output result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buffer{};
  size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    result.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

const nlohmann::json* FindSource(const nlohmann::json& window, const std::string& name) {
  for (const auto& s : window["sources"]) {
    if (s["name"] == name) return &s;
  }
  return nullptr;
}

class NictunedOnceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_F(NictunedOnceTest, AsRootUsesTheProbesAndProcfs) {
  const Output run = RunCommand(kNictuned + " --once --json --interval=300ms");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const auto window = nlohmann::json::parse(run.out);
  EXPECT_NEAR(window["seconds"].get<double>(), 0.3, 0.1);
  const auto* bpf = FindSource(window, "bpf");
  ASSERT_NE(bpf, nullptr);
  EXPECT_TRUE((*bpf)["in_use"].get<bool>()) << (*bpf)["detail"];
  for (const char* procfs : {"/proc/interrupts", "/proc/softirqs", "/proc/net/softnet_stat",
                             "/proc/net/snmp", "/proc/net/netstat", "/proc/stat"}) {
    const auto* s = FindSource(window, procfs);
    ASSERT_NE(s, nullptr) << procfs;
    EXPECT_TRUE((*s)["in_use"].get<bool>()) << procfs << ": " << (*s)["detail"];
  }
  ASSERT_FALSE(window["cpus"].empty());
  // Some timer or device softirq runs on any live machine within 300 ms, so the probes measured it.
  double softirq_share = 0;
  for (const auto& cpu : window["cpus"]) {
    if (cpu.contains("time_share")) softirq_share += cpu["time_share"].value("softirq", 0.0);
  }
  EXPECT_GT(softirq_share, 0.0);
}

TEST_F(NictunedOnceTest, UnprivilegedFallsBackToProcfsAndSaysWhy) {
  const Output run =
      RunCommand(kUnprivileged + kNictuned + " --once --json --interval=200ms 2>/dev/null");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const auto window = nlohmann::json::parse(run.out);
  const auto* bpf = FindSource(window, "bpf");
  ASSERT_NE(bpf, nullptr);
  EXPECT_FALSE((*bpf)["in_use"].get<bool>());
  EXPECT_THAT((*bpf)["detail"].get<std::string>(), HasSubstr("errno"));
  const auto* stat = FindSource(window, "/proc/stat");
  ASSERT_NE(stat, nullptr);
  EXPECT_TRUE((*stat)["in_use"].get<bool>());
  ASSERT_FALSE(window["cpus"].empty());
  EXPECT_TRUE(window["cpus"][0].contains("split"));
  EXPECT_TRUE(window["napis"].empty());
}

TEST_F(NictunedOnceTest, CheckAsRootFindsTheProbesAndEverySourceAndCanApply) {
  const Output run = RunCommand(kNictuned + " --check 2>/dev/null");
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr("BPF probes"));
  EXPECT_THAT(run.out, HasSubstr("programs attached"));
  EXPECT_THAT(run.out, HasSubstr("ok      BTF"));
  for (const char* procfs :
       {"/proc/interrupts", "/proc/softirqs", "/proc/net/softnet_stat", "/proc/stat"}) {
    EXPECT_THAT(run.out, HasSubstr(std::string("ok      ") + procfs)) << run.out;
  }
  EXPECT_THAT(run.out, HasSubstr("ok      BPF napi "));
  EXPECT_THAT(run.out, HasSubstr("attached (")) << "each program says how it is attached";
  EXPECT_THAT(run.out, HasSubstr("ok      knobs on host"));
  EXPECT_THAT(run.out, HasSubstr("read and write: netdev_budget"));
  EXPECT_THAT(run.out, HasSubstr("nictuned runs here"));

  // Apply mode's self-tests, made without writing anything.
  const std::string state = "/tmp/nictune-check-" + std::to_string(getpid());
  const Output apply =
      RunCommand(kNictuned + " --check --mode=apply --state_dir=" + state + " 2>/dev/null");
  EXPECT_EQ(apply.exit_code, 0) << apply.out;
  EXPECT_THAT(apply.out, HasSubstr("ok      apply: sysctls"));
  EXPECT_THAT(apply.out, HasSubstr("ok      apply: device settings"));
  EXPECT_THAT(apply.out, HasSubstr("ok      state directory"));
  EXPECT_EQ(access(state.c_str(), F_OK), -1) << "--check created " << state;
}

TEST_F(NictunedOnceTest, CheckUnprivilegedRunsWithLessAndCannotApply) {
  const Output recommend = RunCommand(kUnprivileged + kNictuned + " --check 2>/dev/null");
  EXPECT_EQ(recommend.exit_code, 0) << recommend.out;
  EXPECT_THAT(recommend.out, HasSubstr("limited BPF probes"));
  EXPECT_THAT(recommend.out, HasSubstr("procfs and sysfs only"));
  EXPECT_THAT(recommend.out, HasSubstr("ok      /proc/stat"));
  // Read, but not written by a user who may not: a limit only in apply mode.
  EXPECT_THAT(recommend.out, HasSubstr("read only: netdev_budget"));

  const Output apply = RunCommand(kUnprivileged + kNictuned +
                                  " --check --mode=apply --state_dir=/var/lib/nictune-check-absent"
                                  " 2>/dev/null");
  EXPECT_EQ(apply.exit_code, 1) << apply.out;
  EXPECT_THAT(apply.out, HasSubstr("cannot  apply: sysctls"));
  EXPECT_THAT(apply.out, HasSubstr("limited apply: device settings"));
  EXPECT_THAT(apply.out, HasSubstr("CAP_NET_ADMIN not held"));
  EXPECT_THAT(apply.out, HasSubstr("cannot  state directory"));
  EXPECT_THAT(apply.out, HasSubstr("cannot run as asked here"));
}

TEST_F(NictunedOnceTest, CheckWithNothingToReadCannotRunAndBadFlagsAreUsageErrors) {
  // In a mount namespace of its own with an empty /run, so that network namespaces this host
  // keeps under /run/netns (sock_diag reads them whatever the proc root) do not count.
  const Output nothing = RunCommand(
      "unshare --mount --propagation private sh -c 'mount -t tmpfs tmpfs /run && exec " +
      kNictuned +
      " --check --bpf=false --proc_root=/nonexistent --sys_root=/nonexistent' 2>/dev/null");
  EXPECT_EQ(nothing.exit_code, 1) << nothing.out;
  EXPECT_THAT(nothing.out, HasSubstr("nothing readable"));
  EXPECT_EQ(RunCommand(kNictuned + " --check --interval=1ms 2>/dev/null").exit_code, 2);
  EXPECT_EQ(RunCommand(kNictuned + " --check --once 2>/dev/null").exit_code, 2);
}

}  // namespace
}  // namespace nictune
