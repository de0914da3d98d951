// SPDX-License-Identifier: Apache-2.0
// Odd devices under the real nictuned in apply mode. The agent runs in a test namespace holding a
// veth and a TAP (no rx-usecs on either: ethtool answers EOPNOTSUPP), with its --proc_root a
// NamespaceProcRoot (the net.core sysctls are copies, so nothing it may write reaches the host),
// and tunes an emulated NIC started with adaptive-rx on and a long rx-usecs (the closed-loop test's
// flow and socket). With adaptive-rx on the NIC keeps the socket from overflowing and the agent
// must leave it alone; once someone switches it off, each burst at that rx-usecs overflows the
// socket and the agent takes over the interval. Then, mid-apply:
//   1. the emulated NIC's TAP and the namespace's TAP are renamed, and the veth carries a flow;
//   2. the veth is deleted and the emulated NIC goes away with its device;
//   3. a new emulated NIC comes up on the old one's control socket with values of its own.
// Throughout, /api/v1/status must answer every poll with sampling going on; at the end SIGTERM
// (--on_exit=restore) must exit 0 having written nothing to the new NIC (the agent's value went
// away with the old one), leaving the renamed TAP's files and the sysctl copies as they were, and
// a journal with nothing pending. No problem may be logged more than once a minute.
#include <signal.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "agent/http/unix_socket_client.h"
#include "driver/emulated/control_protocol.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/apply_agent.h"
#include "tests/support/build_paths.h"
#include "tests/support/emulated_host.h"
#include "tests/support/journal_file.h"
#include "tests/support/namespace_agent.h"
#include "tests/support/namespace_proc_root.h"
#include "tests/support/netns_host.h"
#include "tests/support/privileges.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"
#include "tests/support/udp_flow.h"

namespace nictune {
namespace {

// Each sysctl file's text without the trailing newline.
std::map<std::string, std::string> SysctlValues(const std::map<std::string, std::string>& files) {
  std::map<std::string, std::string> values;
  for (const auto& [path, text] : files) {
    values[path] = text.ends_with('\n') ? text.substr(0, text.size() - 1) : text;
  }
  return values;
}

using testing_support::BackgroundProgram;
using testing_support::EmulatedHost;
using testing_support::JournalRow;

const std::string kNictuned = testing_support::BinaryDir() + "/agent/nictuned";
constexpr char kDevice[] = "emu0";
constexpr absl::Duration kInterval = absl::Milliseconds(250);
constexpr absl::Duration kWindow = absl::Seconds(1);
const std::vector<std::string> kNicKnobs = {std::string(driver::emulated::kKeyRxUsecs),
                                            std::string(driver::emulated::kKeyRxFrames),
                                            std::string(driver::emulated::kKeyAdaptiveRx)};
const std::vector<std::string> kDeviceFiles = {"napi_defer_hard_irqs", "gro_flush_timeout"};

absl::StatusOr<std::unique_ptr<EmulatedHost>> StartNic(const std::string& control_socket,
                                                       const std::map<std::string, int64_t>& set) {
  absl::StatusOr<std::unique_ptr<EmulatedHost>> host = EmulatedHost::Start([&] {
    testing_support::EmulatedHostOptions options = testing_support::SmallSocketNicOptions(
        absl::StrCat(testing_support::BinaryDir(), "/driver/emulated/nictune-emulated-nic"));
    options.control_socket = control_socket;
    return options;
  }());
  if (!host.ok()) return host.status();
  for (const auto& [key, value] : set) {
    if (absl::Status done = (*host)->SetKnob(key, value); !done.ok()) return done;
  }
  return host;
}

// The agent's log, line by line, each stamped with when the test first saw it.
class LogWatch {
 public:
  explicit LogWatch(const BackgroundProgram& agent) : agent_(agent) {}

  void Poll() {
    absl::StatusOr<std::string> text = agent_.OutputSoFar();
    if (!text.ok()) return;
    const size_t end = text->rfind('\n');
    if (end == std::string::npos || end + 1 <= consumed_) return;
    const absl::Time now = absl::Now();
    for (absl::string_view line :
         absl::StrSplit(text->substr(consumed_, end + 1 - consumed_), '\n', absl::SkipEmpty())) {
      lines_.push_back({now, std::string(line)});
    }
    consumed_ = end + 1;
  }

  struct Line {
    absl::Time seen;
    std::string text;
  };
  const std::vector<Line>& lines() const { return lines_; }

  std::string All() const {
    std::string out;
    for (const Line& line : lines_) absl::StrAppend(&out, line.text, "\n");
    return out;
  }

 private:
  const BackgroundProgram& agent_;
  size_t consumed_ = 0;
  std::vector<Line> lines_;
};

// One kind of problem: the line without its numbers (values, counts, errnos and times vary
// between repeats of the same problem).
std::string ProblemOf(const std::string& line) {
  std::string kind;
  for (const char c : line) {
    if (!std::isdigit(static_cast<unsigned char>(c))) kind.push_back(c);
  }
  return kind;
}

// Lines that report what the agent did rather than a problem: a control step that acted (one per
// window at most, and only while the controller changes something) and the per-packet probes
// switching (at most once per 6 windows).
bool IsEvent(const std::string& line) {
  return absl::StrContains(line, ">control step:") || absl::StrContains(line, ">per-packet probes");
}

// The agent's socket listens from its start, but the server behind it starts once the probes have
// loaded: on a loaded VM seconds after the journal is resolved, and a request sent before then
// waits unread. Liveness is watched from the first answer on, within `timeout`.
absl::Status WaitUntilServing(const std::string& socket, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::Status last = absl::DeadlineExceededError("no answer yet");
  while (absl::Now() < deadline) {
    absl::StatusOr<http::Response> status =
        http::Call(socket, "GET", "/api/v1/status", "", absl::Seconds(2));
    if (status.ok() && status->status == 200) return absl::OkStatus();
    last = status.ok() ? absl::UnavailableError(status->body) : status.status();
    absl::SleepFor(absl::Milliseconds(200));
  }
  return absl::DeadlineExceededError(
      absl::StrCat("/api/v1/status not answered within ", absl::FormatDuration(timeout), ": ",
                   last.ToString()));
}

// Polls /api/v1/status over the agent's socket every 200 ms for `span`, reading the log between
// polls; every poll must be answered and sampling must go on across the span. The span starts at
// the agent's first sample: on a loaded VM that may come a few seconds after the socket answers
// (loading and calibrating the probes), and a start is not a stall.
void WatchLiveness(const std::string& socket, absl::Duration span, const std::string& phase,
                   LogWatch& log, int& polls) {
  int64_t first_samples = -1;
  int64_t last_samples = -1;
  absl::Time sampling_seen = absl::InfinitePast();
  const absl::Time start_deadline = absl::Now() + absl::Seconds(30);
  while (first_samples < 0 ? absl::Now() < start_deadline : absl::Now() < sampling_seen + span) {
    absl::StatusOr<http::Response> status =
        http::Call(socket, "GET", "/api/v1/status", "", absl::Seconds(2));
    ++polls;
    if (!status.ok() || status->status != 200) {
      ADD_FAILURE() << phase << ": /api/v1/status not answered: "
                    << (status.ok() ? status->body : status.status().ToString()) << "\n"
                    << log.All();
      return;
    }
    const nlohmann::json body = nlohmann::json::parse(status->body, nullptr, false);
    const int64_t samples = body.is_discarded() ? -1 : body["sampling"].value("samples", -1);
    if (first_samples < 0 && samples > 0) {
      first_samples = samples;
      sampling_seen = absl::Now();
    }
    last_samples = samples;
    log.Poll();
    absl::SleepFor(absl::Milliseconds(200));
  }
  ASSERT_GE(first_samples, 0) << phase << ": no sample within 30 s\n" << log.All();
  // At 250 ms intervals the span holds span / 250 ms samples; half of them is a stalled loop.
  EXPECT_GE(last_samples - first_samples, (absl::Now() - sampling_seen) / kInterval / 2)
      << phase << ": sampling stalled (" << first_samples << " -> " << last_samples << ")";
}

absl::Status Ip(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"ip"};
  argv.insert(argv.end(), args.begin(), args.end());
  return testing_support::RunChecked(argv);
}

absl::Status Rename(const std::string& netns, const std::string& from, const std::string& to) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"-n", netns, "link", "set", from, "down"},
        {"-n", netns, "link", "set", from, "name", to},
        {"-n", netns, "link", "set", to, "up"}}) {
    if (absl::Status done = Ip(args); !done.ok()) return done;
  }
  return absl::OkStatus();
}

std::vector<std::string> DeviceFiles(const std::string& device) {
  std::vector<std::string> files;
  for (const std::string& file : kDeviceFiles) {
    files.push_back(absl::StrCat("/sys/class/net/", device, "/", file));
  }
  return files;
}

// The file contents with the device's name taken out, to compare one device under two names.
std::string WithoutName(std::string text, const std::string& device) {
  for (size_t at = text.find(device); at != std::string::npos; at = text.find(device, at)) {
    text.replace(at, device.size(), "DEV");
  }
  return text;
}

TEST(OddDevicesTest, RenamedAndRemovedDevicesMidApplyNeitherCrashNorFloodNorGetWrittenBack) {
  if (const std::string why = testing_support::WhyNotPrivileged(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  auto hosts = testing_support::VethHosts::Create({.tap_in_b = true});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  const std::string netns = (*hosts)->b().name();
  const std::string tap = (*hosts)->tap_b();
  auto proc_root = testing_support::NamespaceProcRoot::Create();
  ASSERT_TRUE(proc_root.ok()) << proc_root.status();
  auto sysctls_before = proc_root->SysctlFiles();
  ASSERT_TRUE(sysctls_before.ok()) << sysctls_before.status();
  ASSERT_TRUE(sysctls_before->count("sys/net/core/netdev_budget")) << proc_root->path();
  auto tap_before = testing_support::ReadFilesIn(netns, DeviceFiles(tap));
  ASSERT_TRUE(tap_before.ok()) << tap_before.status();

  auto dir = testing_support::TempDir::Create("nictune_odd_devices_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string nic_socket = dir->path() + "/emu.sock";
  const std::map<std::string, int64_t> adaptive_on = {
      {"rx_usecs", 8192}, {"rx_frames", 0}, {"adaptive_rx", 1}};
  auto nic = StartNic(nic_socket, adaptive_on);
  ASSERT_TRUE(nic.ok()) << nic.status();
  const std::string nic_netns = (*nic)->netns();

  const std::string socket = dir->path() + "/nictune.sock";
  auto agent = BackgroundProgram::Start(testing_support::NictunedInNamespace(
      netns, kNictuned, proc_root->path(),
      {"--mode=apply", "--state_dir=" + dir->path(), "--socket=" + socket,
       "--listen=", absl::StrCat("--emulated_nic=", kDevice, "=", nic_socket),
       absl::StrCat("--interval=", absl::FormatDuration(kInterval)),
       absl::StrCat("--window=", absl::FormatDuration(kWindow)), "--guard=2s",
       "--on_exit=restore"}));
  ASSERT_TRUE(agent.ok()) << agent.status();
  LogWatch log(*agent);
  ASSERT_TRUE(testing_support::WaitForJournalResolution(*agent, absl::Seconds(30)).ok())
      << log.All();
  const absl::Status serving = WaitUntilServing(socket, absl::Seconds(30));
  ASSERT_TRUE(serving.ok()) << serving << "\n" << log.All();
  const absl::Time started = absl::Now();
  int polls = 0;

  // Adaptive-rx on owns the interval (the emulated NIC's net_dim keeps the socket from
  // overflowing): for three windows the agent must leave every knob of the NIC alone.
  WatchLiveness(socket, 3 * kWindow, "adaptive-rx on", log, polls);
  {
    auto now = (*nic)->Knobs(kNicKnobs);
    ASSERT_TRUE(now.ok()) << now.status();
    EXPECT_EQ(*now, adaptive_on) << "the agent overrode adaptive-rx:\n" << log.All();
    auto journal = testing_support::ReadJournalFile(dir->path() + "/journal.db");
    ASSERT_TRUE(journal.ok()) << journal.status();
    for (const JournalRow& row : journal->rows) {
      EXPECT_NE(row.target, kDevice) << row.knob << ": " << row.reason;
    }
  }
  // Someone switches adaptive-rx off: at 8192 us each burst overflows the socket, and the agent
  // takes over the interval within a few windows.
  ASSERT_TRUE((*nic)->SetKnob("adaptive_rx", 0).ok());
  std::map<std::string, int64_t> originals = adaptive_on;
  originals["adaptive_rx"] = 0;
  std::map<std::string, int64_t> written = originals;
  for (absl::Time until = absl::Now() + 10 * kWindow;
       absl::Now() < until && written == originals;) {
    absl::SleepFor(absl::Milliseconds(100));
    auto now = (*nic)->Knobs(kNicKnobs);
    ASSERT_TRUE(now.ok()) << now.status();
    written = *now;
  }
  log.Poll();
  if (written == originals) {
    absl::StatusOr<http::Response> recommendations =
        http::Call(socket, "GET", "/api/v1/recommendations", "", absl::Seconds(2));
    FAIL() << "the agent wrote nothing to the emulated NIC; its recommendations: "
           << (recommendations.ok() ? recommendations->body : recommendations.status().ToString())
           << "\nits log:\n"
           << log.All();
  }
  std::cout << "adaptive-rx on, left alone: " << testing_support::DescribeKnobs(adaptive_on)
            << "; then switched off by hand: " << testing_support::DescribeKnobs(originals)
            << "; the agent wrote " << testing_support::DescribeKnobs(written) << "\n";

  // 1. Renamed mid-apply, with a flow over the veth so that the agent observes it (and finds its
  // coalescing unsupported).
  ASSERT_TRUE(Rename(nic_netns, kDevice, "emu0r").ok());
  const std::string renamed_tap = tap + "r";
  ASSERT_TRUE(Rename(netns, tap, renamed_tap).ok());
  {
    testing_support::UdpReceiverOptions receiver;
    receiver.run_time = absl::Seconds(3);
    testing_support::UdpSenderOptions sender;
    sender.packets = 40000;
    sender.packets_per_second = 20000;
    sender.max_duration = absl::Seconds(2);
    auto flow = testing_support::UdpFlow::Open(**hosts, receiver, sender);
    ASSERT_TRUE(flow.ok()) << flow.status();
    auto ran = flow->Run();
    ASSERT_TRUE(ran.ok()) << ran.status();
  }
  WatchLiveness(socket, 3 * kWindow, "after the renames", log, polls);

  // 2. Removed mid-apply: the veth pair, and the emulated NIC with its device.
  ASSERT_TRUE(Ip({"-n", netns, "link", "del", (*hosts)->device_b()}).ok());
  nic->reset();
  WatchLiveness(socket, 5 * kWindow, "after the removals", log, polls);

  // 3. Another NIC comes up on the same control socket with values of its own.
  const std::map<std::string, int64_t> newcomer = {
      {"rx_usecs", 333}, {"rx_frames", 7}, {"adaptive_rx", 0}};
  auto second = StartNic(nic_socket, newcomer);
  ASSERT_TRUE(second.ok()) << second.status();
  WatchLiveness(socket, 4 * kWindow, "after the NIC came back", log, polls);
  auto untouched = (*second)->Knobs(kNicKnobs);
  ASSERT_TRUE(untouched.ok()) << untouched.status();
  EXPECT_EQ(*untouched, newcomer) << "the agent wrote to a NIC it never changed:\n" << log.All();

  const absl::Time terminated = absl::Now();
  ASSERT_TRUE(agent->Signal(SIGTERM).ok());
  auto exited = agent->Wait(absl::Seconds(15));
  ASSERT_TRUE(exited.ok()) << exited.status();
  log.Poll();
  const absl::Duration ran_for = absl::Now() - started;
  EXPECT_EQ(exited->exit_code, 0) << log.All();
  EXPECT_LE(absl::Now() - terminated, absl::Seconds(5));

  // Restore touched only what the agent changed, and none of that is here any more.
  auto after_exit = (*second)->Knobs(kNicKnobs);
  ASSERT_TRUE(after_exit.ok()) << after_exit.status();
  EXPECT_EQ(*after_exit, newcomer) << "restore wrote to a NIC the agent never changed";
  auto tap_after = testing_support::ReadFilesIn(netns, DeviceFiles(renamed_tap));
  ASSERT_TRUE(tap_after.ok()) << tap_after.status();
  EXPECT_EQ(WithoutName(*tap_after, renamed_tap), WithoutName(*tap_before, tap));
  auto sysctls_after = proc_root->SysctlFiles();
  ASSERT_TRUE(sysctls_after.ok()) << sysctls_after.status();
  // As values: a sysctl the tuner changed (netdev_budget, on a host busy enough to squeeze) and
  // put back is written without the newline the kernel prints, which a plain copy keeps.
  EXPECT_EQ(SysctlValues(*sysctls_after), SysctlValues(*sysctls_before));
  auto journal = testing_support::ReadJournalFile(dir->path() + "/journal.db");
  ASSERT_TRUE(journal.ok()) << journal.status();
  EXPECT_EQ(journal->integrity, "ok");
  // A change to the emulated NIC that no later change of the knob superseded either stood until
  // its device went, and was released as gone with it, or the guard rolled it back first (more
  // interrupts cost CPU, and the guard weighs that against the drops they save), which it may do at
  // any step, before or after the rename.
  int stood = 0;
  for (const JournalRow& row : journal->rows) {
    EXPECT_NE(row.state, "journaled") << row.id << " " << row.knob << ": " << row.reason;
    EXPECT_NE(row.state, "applied") << row.id << " " << row.knob << ": " << row.reason;
    EXPECT_NE(row.state, "verified") << row.id << " " << row.knob << ": " << row.reason;
    const bool superseded = absl::StartsWith(row.reason, "superseded by");
    if (row.target == kDevice && row.state != "rolled_back" && !superseded) {
      ++stood;
      EXPECT_TRUE(absl::StrContains(row.reason, "went away"))
          << "a change that stood when its device went was not released as gone: #" << row.id << " "
          << row.knob << " " << row.state << ": " << row.reason;
    }
    std::cout << "journal #" << row.id << " " << row.knob << " " << row.target << " "
              << row.original << " -> " << (row.new_value ? absl::StrCat(*row.new_value) : "-")
              << " " << row.state << ": " << row.reason << "\n";
  }
  std::cout << stood << " change(s) stood until the device went; the rest were rolled back\n";

  // At most one line a minute per problem: each kind of line at most once per started minute of
  // the run, and never twice within a minute.
  std::map<std::string, std::vector<absl::Time>> problems;
  for (const LogWatch::Line& line : log.lines()) {
    if (!IsEvent(line.text)) problems[ProblemOf(line.text)].push_back(line.seen);
  }
  std::string flooded;
  for (const auto& [problem, seen] : problems) {
    for (size_t i = 1; i < seen.size(); ++i) {
      if (seen[i] - seen[i - 1] >= absl::Minutes(1)) continue;
      absl::StrAppend(&flooded, "  ", seen.size(), " x \"", problem, "\", two of them ",
                      absl::FormatDuration(seen[i] - seen[i - 1]), " apart\n");
      break;
    }
  }
  EXPECT_EQ(flooded, "") << "problems logged more than once a minute:\n"
                         << flooded << "the log:\n"
                         << log.All();
  std::cout << log.lines().size() << " log lines in " << ran_for << " (" << problems.size()
            << " kinds besides control steps and probe switches), " << polls
            << " status polls all answered; the log:\n"
            << log.All();
}

}  // namespace
}  // namespace nictune
