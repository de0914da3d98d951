// SPDX-License-Identifier: Apache-2.0
// Privileges.
//  - The daemon under the packaged unit's capability set. The test reads CapabilityBoundingSet,
//    AmbientCapabilities and NoNewPrivileges from deploy/nictuned.service and runs the real
//    nictuned as root through setpriv(1) with exactly those: /proc/PID/status must show them and
//    nothing else (effective, permitted, bounding, ambient), the BPF probes must attach, /metrics
//    must serve, the apply-mode start-up self-test must pass on the host's /proc/sys, and apply
//    mode must write (and journal) an emulated NIC's knob. Without CAP_BPF in the set, the agent
//    says why it measures from procfs alone: the set is what the probes need, not decoration.
//  - The start-up self-test for real: in a private mount namespace (unshare -m) with /proc/sys
//    bind-mounted read-only, --mode=apply exits 1 naming the file and EROFS, and a SIGHUP from
//    recommend into apply mode is refused the same way. The host's /proc/sys is never remounted.
#include "tests/support/privileges.h"

#include <linux/capability.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "agent/http/unix_socket_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/apply_agent.h"
#include "tests/support/build_paths.h"
#include "tests/support/emulated_host.h"
#include "tests/support/journal_file.h"
#include "tests/support/loopback_http.h"
#include "tests/support/loopback_port.h"
#include "tests/support/namespace_agent.h"
#include "tests/support/namespace_proc_root.h"
#include "tests/support/netns_host.h"
#include "tests/support/proc_pid.h"
#include "tests/support/serving_nictuned.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace nictune {
namespace {

using ::testing::HasSubstr;
using testing_support::BackgroundProgram;

const std::string kNictuned = testing_support::BinaryDir() + "/agent/nictuned";
const std::string kUnit = testing_support::SourceDir() + "/deploy/nictuned.service";
constexpr char kSysctl[] = "/proc/sys/net/core/netdev_budget";

// The capabilities the unit may name, by their unit (and setpriv) names.
const std::map<std::string, int>& KnownCapabilities() {
  static const auto* known = new std::map<std::string, int>{{"CAP_BPF", CAP_BPF},
                                                            {"CAP_PERFMON", CAP_PERFMON},
                                                            {"CAP_NET_ADMIN", CAP_NET_ADMIN},
                                                            {"CAP_SYS_ADMIN", CAP_SYS_ADMIN},
                                                            {"CAP_SYS_RESOURCE", CAP_SYS_RESOURCE},
                                                            {"CAP_DAC_OVERRIDE", CAP_DAC_OVERRIDE},
                                                            {"CAP_SYSLOG", CAP_SYSLOG},
                                                            {"CAP_NET_RAW", CAP_NET_RAW}};
  return *known;
}

struct UnitPrivileges {
  std::vector<std::string> bounding;  // CAP_* names
  std::vector<std::string> ambient;
  bool no_new_privileges = false;
};

absl::StatusOr<UnitPrivileges> ReadUnit(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("open ", path));
  UnitPrivileges unit;
  for (std::string line; std::getline(in, line);) {
    absl::string_view text = absl::StripAsciiWhitespace(line);
    if (absl::ConsumePrefix(&text, "CapabilityBoundingSet=")) {
      unit.bounding = absl::StrSplit(text, ' ', absl::SkipEmpty());
    } else if (absl::ConsumePrefix(&text, "AmbientCapabilities=")) {
      unit.ambient = absl::StrSplit(text, ' ', absl::SkipEmpty());
    } else if (absl::ConsumePrefix(&text, "NoNewPrivileges=")) {
      unit.no_new_privileges = text == "yes" || text == "true";
    }
  }
  if (unit.bounding.empty()) {
    return absl::NotFoundError(absl::StrCat(path, ": no CapabilityBoundingSet="));
  }
  return unit;
}

absl::StatusOr<uint64_t> MaskOf(const std::vector<std::string>& names) {
  uint64_t mask = 0;
  for (const std::string& name : names) {
    auto it = KnownCapabilities().find(name);
    if (it == KnownCapabilities().end()) {
      return absl::UnimplementedError(
          absl::StrCat("the unit names ", name, ", unknown to this test"));
    }
    mask |= uint64_t{1} << it->second;
  }
  return mask;
}

// "-all,+bpf,+perfmon": setpriv's list for exactly these capabilities.
std::string SetprivList(const std::vector<std::string>& names) {
  std::vector<std::string> items = {"-all"};
  for (const std::string& name : names) {
    items.push_back(absl::StrCat("+", absl::AsciiStrToLower(absl::StripPrefix(name, "CAP_"))));
  }
  return absl::StrJoin(items, ",");
}

// setpriv as systemd would start the unit's process (root, these capabilities only).
std::vector<std::string> Setpriv(const std::vector<std::string>& bounding,
                                 const std::vector<std::string>& ambient, bool no_new_privileges) {
  std::vector<std::string> argv = {"setpriv", "--bounding-set=" + SetprivList(bounding),
                                   "--inh-caps=" + SetprivList(ambient),
                                   "--ambient-caps=" + SetprivList(ambient)};
  if (no_new_privileges) argv.push_back("--no-new-privs");
  return argv;
}

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Every capability set of the process is `mask`, and it is nictuned itself (setpriv exec'd it).
void ExpectOnly(pid_t pid, uint64_t mask) {
  absl::StatusOr<std::string> name = testing_support::StatusField(pid, "Name");
  ASSERT_TRUE(name.ok()) << name.status();
  EXPECT_EQ(*name, "nictuned");
  for (const char* set : {"CapEff", "CapPrm", "CapBnd", "CapAmb"}) {
    absl::StatusOr<uint64_t> value = testing_support::CapabilitySet(pid, set);
    ASSERT_TRUE(value.ok()) << value.status();
    EXPECT_EQ(*value, mask) << set << " " << std::hex << *value << " != " << mask;
  }
}

class PrivilegesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = testing_support::WhyNotPrivileged(); !why.empty()) {
      GTEST_SKIP() << why;
    }
    auto unit = ReadUnit(kUnit);
    ASSERT_TRUE(unit.ok()) << unit.status();
    unit_ = *unit;
    auto mask = MaskOf(unit_.bounding);
    ASSERT_TRUE(mask.ok()) << mask.status();
    mask_ = *mask;
    // Ambient capabilities only keep, across exec, what the bounding set allows.
    for (const std::string& name : unit_.ambient) {
      ASSERT_NE(std::find(unit_.bounding.begin(), unit_.bounding.end(), name), unit_.bounding.end())
          << name;
    }
  }

  UnitPrivileges unit_;
  uint64_t mask_ = 0;
};

TEST_F(PrivilegesTest, UnderTheUnitsCapabilitiesOnlyThoseAreHeldAndProbesMetricsAndApplyWork) {
  std::cout << "unit " << kUnit << ": bounding " << absl::StrJoin(unit_.bounding, " ")
            << ", ambient " << absl::StrJoin(unit_.ambient, " ") << ", NoNewPrivileges "
            << unit_.no_new_privileges << " -> mask " << std::hex << mask_ << std::dec << "\n";
  const std::vector<std::string> setpriv =
      Setpriv(unit_.bounding, unit_.ambient, unit_.no_new_privileges);
  auto dir = testing_support::TempDir::Create("nictune_privileges_");
  ASSERT_TRUE(dir.ok()) << dir.status();

  // 1. In the host's namespaces, apply mode: the self-test passes on the real /proc/sys, the
  // probes attach, /metrics serves. The tuner window (60 s) never closes, so nothing is tuned.
  {
    auto port = testing_support::FreeLoopbackPort();
    ASSERT_TRUE(port.ok()) << port.status();
    auto agent = BackgroundProgram::Start(Concat(
        Concat({"/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1"}, setpriv),
        {kNictuned, "--mode=apply", absl::StrCat("--listen=127.0.0.1:", *port),
         "--state_dir=" + dir->path() + "/host", "--socket=", "--interval=200ms", "--window=60s"}));
    ASSERT_TRUE(agent.ok()) << agent.status();
    ASSERT_TRUE(agent->WaitForOutput("nictuned 0", absl::Seconds(30)).ok())
        << testing_support::AgentLog(*agent);
    EXPECT_THAT(testing_support::AgentLog(*agent), HasSubstr("change journal resolved"))
        << "the self-test failed";
    ExpectOnly(agent->pid(), mask_);
    absl::StatusOr<nlohmann::json> status = absl::UnavailableError("not asked");
    for (absl::Time until = absl::Now() + absl::Seconds(10); absl::Now() < until;) {
      status = testing_support::GetJsonLoopback(*port, "/api/v1/status");
      if (status.ok() && (*status)["sampling"].value("samples", 0) >= 2) break;
      absl::SleepFor(absl::Milliseconds(100));
    }
    ASSERT_TRUE(status.ok()) << status.status() << "\n" << testing_support::AgentLog(*agent);
    EXPECT_TRUE((*status)["bpf"].value("in_use", false)) << (*status)["bpf"].dump();
    int attached = 0;
    for (const nlohmann::json& program : (*status)["bpf"]["programs"]) {
      attached += program.value("attached", false) ? 1 : 0;
    }
    EXPECT_GE(attached, 5) << (*status)["bpf"].dump();
    auto metrics = testing_support::HttpGetLoopback(*port, "/metrics", absl::Seconds(5));
    ASSERT_TRUE(metrics.ok()) << metrics.status();
    EXPECT_EQ(metrics->status, 200);
    EXPECT_THAT(metrics->body, HasSubstr("nictune_samples_total"));
    ASSERT_TRUE(agent->Signal(SIGTERM).ok());
    auto exited = agent->Wait(absl::Seconds(15));
    ASSERT_TRUE(exited.ok()) << exited.status();
    EXPECT_EQ(exited->exit_code, 0) << exited->out;
    std::cout << "host namespaces: " << attached << " BPF programs attached, /metrics "
              << metrics->body.size() << " bytes\n";
  }

  // 2. Apply mode writes a knob that needs no sysctl: an emulated NIC's, from a test namespace
  // (its --proc_root a NamespaceProcRoot, so nothing reaches the host's sysctls).
  {
    auto hosts = testing_support::VethHosts::Create({});
    ASSERT_TRUE(hosts.ok()) << hosts.status();
    auto proc_root = testing_support::NamespaceProcRoot::Create();
    ASSERT_TRUE(proc_root.ok()) << proc_root.status();
    auto nic = testing_support::EmulatedHost::Start(testing_support::SmallSocketNicOptions(
        absl::StrCat(testing_support::BinaryDir(), "/driver/emulated/nictune-emulated-nic")));
    ASSERT_TRUE(nic.ok()) << nic.status();
    const std::string nic_socket = (*nic)->control_socket();
    ASSERT_TRUE((*nic)->SetKnob("rx_usecs", 8192).ok());
    const std::string state = dir->path() + "/netns";
    auto agent = BackgroundProgram::Start(testing_support::NictunedInNamespace(
        (*hosts)->b().name(), kNictuned, proc_root->path(),
        {"--mode=apply", "--state_dir=" + state, "--socket=" + dir->path() + "/agent.sock",
         "--listen=", "--emulated_nic=emu0=" + nic_socket, "--interval=250ms", "--window=1s",
         "--guard=10s"},
        setpriv));
    ASSERT_TRUE(agent.ok()) << agent.status();
    ASSERT_TRUE(testing_support::WaitForJournalResolution(*agent, absl::Seconds(30)).ok())
        << testing_support::AgentLog(*agent);
    ExpectOnly(agent->pid(), mask_);
    int64_t written = 8192;
    for (absl::Time until = absl::Now() + absl::Seconds(15); absl::Now() < until;) {
      auto value = (*nic)->Knob("rx_usecs");
      ASSERT_TRUE(value.ok()) << value.status();
      written = *value;
      if (written != 8192) break;
      absl::SleepFor(absl::Milliseconds(100));
    }
    EXPECT_NE(written, 8192) << "apply mode wrote nothing under the unit's capabilities:\n"
                             << testing_support::AgentLog(*agent);
    ASSERT_TRUE(agent->Signal(SIGTERM).ok());
    auto exited = agent->Wait(absl::Seconds(15));
    ASSERT_TRUE(exited.ok()) << exited.status();
    EXPECT_EQ(exited->exit_code, 0) << exited->out;
    auto journal = testing_support::ReadJournalFile(state + "/journal.db");
    ASSERT_TRUE(journal.ok()) << journal.status();
    EXPECT_FALSE(journal->rows.empty());
    auto restored = (*nic)->Knob("rx_usecs");
    ASSERT_TRUE(restored.ok()) << restored.status();
    EXPECT_EQ(*restored, 8192) << "SIGTERM did not restore under the unit's capabilities";
    std::cout << "test namespace: apply wrote rx_usecs 8192 -> " << written << " ("
              << journal->rows.size() << " journal rows), restored at exit\n";
  }
}

TEST_F(PrivilegesTest, WithoutCapBpfTheAgentSaysWhyItMeasuresFromProcfsAlone) {
  std::vector<std::string> without_bpf;
  for (const std::string& name : unit_.bounding) {
    if (name != "CAP_BPF") without_bpf.push_back(name);
  }
  ASSERT_LT(without_bpf.size(), unit_.bounding.size()) << "the unit does not grant CAP_BPF";
  auto dir = testing_support::TempDir::Create("nictune_no_bpf_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  auto port = testing_support::FreeLoopbackPort();
  ASSERT_TRUE(port.ok()) << port.status();
  auto agent = testing_support::StartServingNictuned(
      Concat(Setpriv(without_bpf, without_bpf, true),
             {kNictuned, "--mode=recommend", absl::StrCat("--listen=127.0.0.1:", *port),
              "--state_dir=" + dir->path(), "--socket=", "--interval=200ms", "--window=1s"}),
      *port, absl::Seconds(20));
  ASSERT_TRUE(agent.ok()) << agent.status();
  auto mask = MaskOf(without_bpf);
  ASSERT_TRUE(mask.ok()) << mask.status();
  ExpectOnly(agent->pid(), *mask);
  auto status = testing_support::GetJsonLoopback(*port, "/api/v1/status");
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_FALSE((*status)["bpf"].value("in_use", true)) << (*status)["bpf"].dump();
  const std::string why = (*status)["bpf"].value("why_not", "");
  EXPECT_THAT(why, ::testing::AnyOf(HasSubstr("Operation not permitted"), HasSubstr("EPERM"),
                                    HasSubstr("errno 1")))
      << why;
  std::cout << "without CAP_BPF: " << why << "\n";
  ASSERT_TRUE(agent->Signal(SIGTERM).ok());
  auto exited = agent->Wait(absl::Seconds(15));
  ASSERT_TRUE(exited.ok()) << exited.status();
  EXPECT_EQ(exited->exit_code, 0) << exited->err;
}

// `unshare -m` then, inside the new mount namespace only, /proc/sys read-only, then argv.
std::vector<std::string> WithReadOnlyProcSys(const std::vector<std::string>& argv) {
  return Concat({"unshare", "--mount", "--propagation", "private", "/bin/sh", "-c",
                 "mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys && "
                 "exec \"$0\" \"$@\" 2>&1"},
                argv);
}

TEST_F(PrivilegesTest, ApplyModeRefusesToStartOrReloadWhenProcSysIsReadOnly) {
  ASSERT_EQ(access(kSysctl, W_OK), 0) << "the host's /proc/sys must be writable to begin with";
  auto dir = testing_support::TempDir::Create("nictune_ro_sysctl_");
  ASSERT_TRUE(dir.ok()) << dir.status();

  auto refused = testing_support::RunProgram(
      WithReadOnlyProcSys({kNictuned, "--mode=apply", "--bpf=false",
                           "--listen=", "--socket=", "--state_dir=" + dir->path() + "/start"}));
  ASSERT_TRUE(refused.ok()) << refused.status();
  EXPECT_EQ(refused->exit_code, 1) << refused->out << refused->err;
  EXPECT_THAT(refused->out, HasSubstr(absl::StrCat(kSysctl,
                                                   " is not writable: Read-only file "
                                                   "system (errno 30)")));
  EXPECT_THAT(refused->out, HasSubstr("refusing to start"));
  auto journal = testing_support::ReadJournalFile(dir->path() + "/start/journal.db");
  if (journal.ok()) {
    EXPECT_TRUE(journal->rows.empty());
  }

  // Started in recommend mode, then asked by SIGHUP to apply: the reload is refused, the mode
  // stays.
  const std::string flagfile = dir->path() + "/nictuned.flags";
  std::ofstream(flagfile) << "--mode=recommend\n";
  auto port = testing_support::FreeLoopbackPort();
  ASSERT_TRUE(port.ok()) << port.status();
  auto agent = testing_support::StartServingNictuned(
      WithReadOnlyProcSys({kNictuned, "--flagfile=" + flagfile, "--bpf=false",
                           absl::StrCat("--listen=127.0.0.1:", *port),
                           "--state_dir=" + dir->path() + "/reload",
                           "--socket=", "--interval=200ms", "--window=1s"}),
      *port, absl::Seconds(20));
  ASSERT_TRUE(agent.ok()) << agent.status();
  std::ofstream(flagfile, std::ios::trunc) << "--mode=apply\n";
  ASSERT_TRUE(agent->Signal(SIGHUP).ok());
  ASSERT_TRUE(agent->WaitForOutput("SIGHUP: configuration kept", absl::Seconds(10)).ok())
      << testing_support::AgentLog(*agent);
  EXPECT_THAT(testing_support::AgentLog(*agent),
              HasSubstr(absl::StrCat(kSysctl,
                                     " is not writable: Read-only file "
                                     "system (errno 30)")));
  auto status = testing_support::GetJsonLoopback(*port, "/api/v1/status");
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ((*status).value("mode", ""), "recommend");
  ASSERT_TRUE(agent->Signal(SIGTERM).ok());
  auto exited = agent->Wait(absl::Seconds(15));
  ASSERT_TRUE(exited.ok()) << exited.status();
  EXPECT_EQ(exited->exit_code, 0) << exited->out;

  // Only the private mount namespaces saw /proc/sys read-only.
  EXPECT_EQ(access(kSysctl, W_OK), 0) << "the host's /proc/sys is read-only now";
  std::cout << "read-only /proc/sys: " << refused->out;
}

}  // namespace
}  // namespace nictune
