// SPDX-License-Identifier: Apache-2.0
// Mutating endpoints on TCP without the token are refused and write nothing, against the real
// nictuned. An agent in apply mode (inside a test namespace, its --proc_root a NamespaceProcRoot)
// changes an emulated NIC and is SIGKILLed, so the journal owes the NIC its originals: a restore or
// a rollback that got through would write them back at once. Then the real nictuned serves TCP
// twice on the same state, without --api_token_file and with one: every POST /api/v1/apply,
// /rollback and /restore without the token, with a wrong one or another scheme is 403, and
// afterwards the NIC's knobs and the journal's rows are exactly as before. With the token, the same
// rollback and restore go through and put the originals back: the comparison would have seen a
// write.
#include <signal.h>
#include <sys/stat.h>

#include <cstdint>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "driver/emulated/control_protocol.h"
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
#include "tests/support/privileges.h"
#include "tests/support/serving_nictuned.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace nictune {
namespace {

using testing_support::BackgroundProgram;
using testing_support::HttpRequestSpec;

const std::string kNictuned = testing_support::BinaryDir() + "/agent/nictuned";
constexpr char kDevice[] = "emu0";
constexpr char kToken[] = "a-token-of-thirty-two-characters";
constexpr int64_t kStartRxUsecs = 8192;
const std::vector<std::string> kNicKnobs = {std::string(driver::emulated::kKeyRxUsecs),
                                            std::string(driver::emulated::kKeyRxFrames),
                                            std::string(driver::emulated::kKeyAdaptiveRx)};

// Every column of every row: a write would change a state, a value or a reason.
std::string Describe(const testing_support::JournalFile& journal) {
  std::string out;
  for (const testing_support::JournalRow& row : journal.rows) {
    absl::StrAppend(&out, "#", row.id, " ", row.boot_id, " ", row.knob, " ", row.target, " ",
                    row.original, " -> ", row.new_value ? absl::StrCat(*row.new_value) : "-", " ",
                    row.state, ": ", row.reason, "\n");
  }
  return out;
}

TEST(ApiTokenTest, MutationsOnTcpWithoutTheTokenAreRefusedAndWriteNothing) {
  if (const std::string why = testing_support::WhyNotPrivileged(); !why.empty()) {
    GTEST_SKIP() << why;
  }
  auto hosts = testing_support::VethHosts::Create({});
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  auto proc_root = testing_support::NamespaceProcRoot::Create();
  ASSERT_TRUE(proc_root.ok()) << proc_root.status();
  auto dir = testing_support::TempDir::Create("nictune_api_token_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  auto nic = testing_support::EmulatedHost::Start(testing_support::SmallSocketNicOptions(
      absl::StrCat(testing_support::BinaryDir(), "/driver/emulated/nictune-emulated-nic")));
  ASSERT_TRUE(nic.ok()) << nic.status();
  const std::string nic_socket = (*nic)->control_socket();
  ASSERT_TRUE((*nic)->SetKnob("rx_usecs", kStartRxUsecs).ok());
  auto originals = (*nic)->Knobs(kNicKnobs);
  ASSERT_TRUE(originals.ok()) << originals.status();
  const std::string emulated_nic = absl::StrCat("--emulated_nic=", kDevice, "=", nic_socket);
  const std::string database = dir->path() + "/journal.db";

  // An agent changes the NIC and dies: the journal owes the originals.
  {
    auto writer = BackgroundProgram::Start(testing_support::NictunedInNamespace(
        (*hosts)->b().name(), kNictuned, proc_root->path(),
        {"--mode=apply", "--state_dir=" + dir->path(), "--socket=" + dir->path() + "/writer.sock",
         "--listen=", emulated_nic, "--interval=250ms", "--window=1s", "--guard=10s"}));
    ASSERT_TRUE(writer.ok()) << writer.status();
    bool wrote = false;
    for (absl::Time until = absl::Now() + absl::Seconds(20); absl::Now() < until && !wrote;) {
      absl::SleepFor(absl::Milliseconds(100));
      auto value = (*nic)->Knob("rx_usecs");
      ASSERT_TRUE(value.ok()) << value.status();
      wrote = *value != kStartRxUsecs;
    }
    ASSERT_TRUE(wrote) << "the apply-mode agent never changed the NIC:\n"
                       << testing_support::AgentLog(*writer);
    ASSERT_TRUE(writer->Signal(SIGKILL).ok());
    ASSERT_TRUE(writer->Wait(absl::Seconds(10)).ok());
  }
  auto changed = (*nic)->Knobs(kNicKnobs);
  ASSERT_TRUE(changed.ok()) << changed.status();
  auto journal_before = testing_support::ReadJournalFile(database);
  ASSERT_TRUE(journal_before.ok()) << journal_before.status();
  int64_t pending_id = 0;
  for (const testing_support::JournalRow& row : journal_before->rows) {
    if (row.knob == "rx_usecs" && (row.state == "applied" || row.state == "journaled")) {
      pending_id = row.id;
    }
  }
  ASSERT_NE(pending_id, 0) << Describe(*journal_before);
  std::cout << "originals " << testing_support::DescribeKnobs(*originals)
            << "; the killed agent left " << testing_support::DescribeKnobs(*changed)
            << ", journal:\n"
            << Describe(*journal_before);

  const std::string token_file = dir->path() + "/token";
  std::ofstream(token_file) << kToken << "\n";
  ASSERT_EQ(chmod(token_file.c_str(), 0600), 0);
  const std::vector<HttpRequestSpec> mutations = {
      {.method = "POST", .target = "/api/v1/apply", .body = "{}"},
      {.method = "POST",
       .target = "/api/v1/apply",
       .body = R"({"knob": "rx_usecs", "target": "emu0"})"},
      {.method = "POST",
       .target = "/api/v1/rollback",
       .body = absl::StrCat(R"({"change_id": )", pending_id, "}")},
      {.method = "POST",
       .target = "/api/v1/rollback",
       .body = R"({"knob": "rx_usecs", "target": "emu0"})"},
      {.method = "POST", .target = "/api/v1/restore", .body = ""}};
  const std::vector<std::string> wrong_credentials = {"",
                                                      "Bearer not-the-token-but-as-long-as-it",
                                                      absl::StrCat("Bearer ", kToken, "x"),
                                                      absl::StrCat("Basic ", kToken),
                                                      absl::StrCat("Bearer", kToken),
                                                      kToken};

  int refused = 0;
  for (const bool with_token_file : {false, true}) {
    SCOPED_TRACE(with_token_file ? "with --api_token_file" : "without --api_token_file");
    auto port = testing_support::FreeLoopbackPort();
    ASSERT_TRUE(port.ok()) << port.status();
    std::vector<std::string> argv = {kNictuned,
                                     "--mode=recommend",
                                     "--bpf=false",
                                     absl::StrCat("--listen=127.0.0.1:", *port),
                                     "--state_dir=" + dir->path(),
                                     "--socket=" + dir->path() + "/server.sock",
                                     emulated_nic,
                                     "--interval=200ms",
                                     "--window=1s"};
    if (with_token_file) argv.push_back("--api_token_file=" + token_file);
    auto agent = testing_support::StartServingNictuned(argv, *port, absl::Seconds(20));
    ASSERT_TRUE(agent.ok()) << agent.status();

    for (const HttpRequestSpec& mutation : mutations) {
      for (const std::string& credential : wrong_credentials) {
        HttpRequestSpec request = mutation;
        request.authorization = credential;
        auto reply = testing_support::HttpRequestLoopback(*port, request, absl::Seconds(5));
        ASSERT_TRUE(reply.ok()) << reply.status();
        EXPECT_TRUE(reply->status == 401 || reply->status == 403)
            << request.method << " " << request.target << " with \"" << credential << "\": HTTP "
            << reply->status << ": " << reply->body;
        const nlohmann::json body = nlohmann::json::parse(reply->body, nullptr, false);
        EXPECT_EQ(body.is_discarded() ? "" : body.value("error", ""), "forbidden") << reply->body;
        ++refused;
      }
    }
    // Nothing reached the kernel (the NIC) or the journal.
    auto now = (*nic)->Knobs(kNicKnobs);
    ASSERT_TRUE(now.ok()) << now.status();
    EXPECT_EQ(*now, *changed) << "a refused request wrote the NIC";
    auto journal = testing_support::ReadJournalFile(database);
    ASSERT_TRUE(journal.ok()) << journal.status();
    EXPECT_EQ(Describe(*journal), Describe(*journal_before)) << "a refused request journaled";

    if (with_token_file) {
      // The same requests with the token do write: the comparison above would have seen them.
      const std::string bearer = absl::StrCat("Bearer ", kToken);
      HttpRequestSpec rollback = mutations[2];
      rollback.authorization = bearer;
      auto rolled_back = testing_support::HttpRequestLoopback(*port, rollback, absl::Seconds(5));
      ASSERT_TRUE(rolled_back.ok()) << rolled_back.status();
      EXPECT_EQ(rolled_back->status, 200) << rolled_back->body << "\nthe agent's log:\n"
                                          << testing_support::AgentLog(*agent);
      auto rx_usecs = (*nic)->Knob("rx_usecs");
      ASSERT_TRUE(rx_usecs.ok()) << rx_usecs.status();
      EXPECT_EQ(*rx_usecs, originals->at("rx_usecs"));
      HttpRequestSpec restore = mutations[4];
      restore.authorization = bearer;
      auto restored = testing_support::HttpRequestLoopback(*port, restore, absl::Seconds(5));
      ASSERT_TRUE(restored.ok()) << restored.status();
      EXPECT_EQ(restored->status, 200) << restored->body;
      auto after = (*nic)->Knobs(kNicKnobs);
      ASSERT_TRUE(after.ok()) << after.status();
      EXPECT_EQ(*after, *originals);
      auto closed = testing_support::ReadJournalFile(database);
      ASSERT_TRUE(closed.ok()) << closed.status();
      EXPECT_NE(Describe(*closed), Describe(*journal_before));
      std::cout << "with the token: rollback of change " << pending_id << " and restore put back "
                << testing_support::DescribeKnobs(*after) << "; journal:\n"
                << Describe(*closed);
    }
    ASSERT_TRUE(agent->Signal(SIGTERM).ok());
    auto exited = agent->Wait(absl::Seconds(15));
    ASSERT_TRUE(exited.ok()) << exited.status();
    EXPECT_EQ(exited->exit_code, 0) << exited->err;
  }
  std::cout << refused << " mutating requests without the token refused, none wrote\n";
}

}  // namespace
}  // namespace nictune
