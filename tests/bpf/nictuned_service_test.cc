// SPDX-License-Identifier: Apache-2.0
// The built nictuned as systemd runs it: NOTIFY_SOCKET is a datagram socket this test owns, the
// HTTP server on a free loopback port, the store in a temporary directory, sampling every 200 ms
// with 1 s tuner windows. Waits for READY=1, reads /metrics, status and recommendations over TCP,
// checks that sampling keeps its cadence, then SIGTERM: exit 0 after STOPPING=1.
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "agent/store/store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/build_paths.h"
#include "tests/support/loopback_http.h"
#include "tests/support/loopback_port.h"
#include "tests/support/privileges.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace nictune {
namespace {

using ::testing::HasSubstr;

const std::string kNictuned = testing_support::BinaryDir() + "/agent/nictuned";

// The test's stand-in for systemd's notification socket. Like systemd it reads all the time: a
// datagram queue left full would block the agent's sd_notify (and with it the sampling loop).
class NotifySocket {
 public:
  explicit NotifySocket(const std::string& path) {
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    path.copy(address.sun_path, sizeof address.sun_path - 1);
    EXPECT_EQ(bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    timeval wait{.tv_sec = 0, .tv_usec = 100'000};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    reader_ = std::thread([this] {
      while (!stop_) {
        char buffer[4096];
        const ssize_t n = recv(fd_, buffer, sizeof buffer, 0);
        if (n <= 0) continue;
        std::lock_guard lock(mutex_);
        seen_.emplace_back(buffer, static_cast<size_t>(n));
      }
    });
  }
  ~NotifySocket() {
    stop_ = true;
    reader_.join();
    close(fd_);
  }

  // Whether `message` arrives (or already did) within `timeout`.
  bool WaitFor(const std::string& message, absl::Duration timeout) {
    const absl::Time until = absl::Now() + timeout;
    do {
      for (const std::string& m : Seen()) {
        if (m == message) return true;
      }
      absl::SleepFor(absl::Milliseconds(50));
    } while (absl::Now() < until);
    return false;
  }

  std::vector<std::string> Seen() {
    std::lock_guard lock(mutex_);
    return seen_;
  }

 private:
  int fd_ = -1;
  std::atomic<bool> stop_ = false;
  std::mutex mutex_;
  std::vector<std::string> seen_;
  std::thread reader_;
};

testing_support::HttpReply Get(uint16_t port, const std::string& target) {
  absl::StatusOr<testing_support::HttpReply> reply =
      testing_support::HttpGetLoopback(port, target, absl::Seconds(5));
  if (!reply.ok()) {
    ADD_FAILURE() << reply.status();
    return {};
  }
  return *std::move(reply);
}

nlohmann::json GetJson(uint16_t port, const std::string& target) {
  const testing_support::HttpReply reply = Get(port, target);
  EXPECT_EQ(reply.status, 200) << target << ": " << reply.body;
  return nlohmann::json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
}

absl::Time ParseTime(const nlohmann::json& text) {
  absl::Time t;
  std::string error;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, text.get<std::string>(), &t, &error)) << error;
  return t;
}

class NictunedServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing_support::WhyNotPrivileged(); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_F(NictunedServiceTest, ServesNotifiesKeepsCadenceAndStopsCleanly) {
  absl::StatusOr<testing_support::TempDir> dir =
      testing_support::TempDir::Create("nictuned_service_");
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string state_dir = dir->path() + "/state";
  const std::string notify_path = dir->path() + "/notify.sock";
  NotifySocket notify(notify_path);
  absl::StatusOr<uint16_t> port = testing_support::FreeLoopbackPort();
  ASSERT_TRUE(port.ok()) << port.status();

  setenv("NOTIFY_SOCKET", notify_path.c_str(), 1);
  auto agent = testing_support::BackgroundProgram::Start(
      {kNictuned, absl::StrCat("--listen=127.0.0.1:", *port), "--state_dir=" + state_dir,
       "--interval=200ms", "--window=1s", "--socket="});
  unsetenv("NOTIFY_SOCKET");
  ASSERT_TRUE(agent.ok()) << agent.status();

  // READY comes after the first 1 s tuner window.
  ASSERT_TRUE(notify.WaitFor("READY=1", absl::Seconds(20)))
      << "datagrams so far: " << notify.Seen().size();
  bool saw_status = false;
  for (const std::string& m : notify.Seen()) {
    if (absl::StartsWith(m, "STATUS=")) {
      saw_status = true;
      EXPECT_THAT(m, HasSubstr("samples"));
      EXPECT_EQ(m.find('\n'), std::string::npos);
    }
  }
  EXPECT_TRUE(saw_status);

  const testing_support::HttpReply metrics = Get(*port, "/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_THAT(metrics.body, HasSubstr("nictune_samples_total "));
  EXPECT_THAT(metrics.body, HasSubstr("nictune_store_healthy 1\n"));
  EXPECT_THAT(metrics.body, HasSubstr("nictune_store_errors_total 0\n"));
  EXPECT_THAT(metrics.body, HasSubstr("nictune_tuner_windows_total "));
  EXPECT_THAT(metrics.body, HasSubstr("nictune_softirqs_total{"));

  const nlohmann::json recommendations = GetJson(*port, "/api/v1/recommendations");
  ASSERT_TRUE(recommendations.is_object());
  const bool recommended = !recommendations["recommendations"].empty();
  EXPECT_TRUE(recommendations["recommendations"].is_array());
  EXPECT_EQ(recommendations["window"]["samples"], 5);  // 1 s of 200 ms intervals
  EXPECT_FALSE(recommendations["window"]["end"].is_null());
  if (recommendations["recommendations"].empty()) {
    EXPECT_FALSE(recommendations["reason"].get<std::string>().empty());
  }

  const nlohmann::json first = GetJson(*port, "/api/v1/status");
  ASSERT_TRUE(first.is_object());
  EXPECT_EQ(first["mode"], "recommend");
  EXPECT_DOUBLE_EQ(first["interval_s"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(first["window_s"].get<double>(), 1.0);
  EXPECT_TRUE(first["bpf"]["in_use"].get<bool>()) << first["bpf"].dump();
  EXPECT_FALSE(first["bpf"]["programs"].empty());
  EXPECT_TRUE(first["store"]["healthy"].get<bool>()) << first["store"].dump();
  EXPECT_GE(first["sampling"]["windows"].get<int>(), 1);
  EXPECT_FALSE(first["sources"].empty());

  const nlohmann::json snapshot = GetJson(*port, "/api/v1/snapshot");
  ASSERT_TRUE(snapshot.is_object());
  EXPECT_NEAR(snapshot["seconds"].get<double>(), 0.2, 0.05);

  absl::SleepFor(absl::Seconds(3));
  const nlohmann::json second = GetJson(*port, "/api/v1/status");
  ASSERT_TRUE(second.is_object());
  // Every 200 ms deadline between the two readings produced a sample: the count advanced by
  // the time between the last samples over the interval, and nothing was missed.
  const int64_t samples =
      second["sampling"]["samples"].get<int64_t>() - first["sampling"]["samples"].get<int64_t>();
  const double elapsed_s = absl::ToDoubleSeconds(ParseTime(second["sampling"]["last_sample"]) -
                                                 ParseTime(first["sampling"]["last_sample"]));
  EXPECT_GE(samples, 14);  // 3 s at 5 per second, less the edges
  EXPECT_EQ(samples, std::lround(elapsed_s / 0.2)) << "elapsed " << elapsed_s << " s";
  EXPECT_EQ(second["sampling"]["missed_intervals"], 0);
  EXPECT_EQ(second["sampling"]["failed_samples"], 0);
  EXPECT_GE(second["sampling"]["windows"].get<int64_t>(),
            first["sampling"]["windows"].get<int64_t>() + 2);

  ASSERT_TRUE(agent->Signal(SIGTERM).ok());
  const auto exited = agent->Wait(absl::Seconds(30));  // probes detach slowly under load
  ASSERT_TRUE(exited.ok()) << exited.status();
  EXPECT_EQ(exited->exit_code, 0) << exited->err;
  EXPECT_TRUE(notify.WaitFor("STOPPING=1", absl::Seconds(2)));

  // The intervals reached the store on disk.
  auto store = store::Store::Open(
      state_dir, store::StoreOptions{.resolutions = {{absl::Milliseconds(200), absl::Hours(1)},
                                                     {absl::Seconds(10), absl::Hours(24)},
                                                     {absl::Minutes(1), absl::Hours(720)}}});
  ASSERT_TRUE(store.ok()) << store.status();
  auto stats = (*store)->Stats();
  ASSERT_TRUE(stats.ok()) << stats.status();
  int64_t sample_rows = 0;
  int64_t recommendation_rows = -1;
  for (const auto& t : stats->rows) {
    if (absl::StartsWith(t.table, "samples")) sample_rows += t.rows;
    if (t.table == "recommendations") recommendation_rows = t.rows;
  }
  EXPECT_GT(sample_rows, 0);
  if (recommended) {
    EXPECT_GT(recommendation_rows, 0);
  }
}

}  // namespace
}  // namespace nictune
