// SPDX-License-Identifier: Apache-2.0
// sd_notify against a real AF_UNIX datagram socket this test owns, passed in NOTIFY_SOCKET as
// systemd passes it; no root needed.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "agent/systemd/notifier.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::systemd {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A bound datagram socket in a fresh directory, removed with its directory at the end.
class NotifySocket {
 public:
  NotifySocket() {
    char dir_template[] = "/tmp/nictune_notify_XXXXXX";
    dir_ = mkdtemp(dir_template);
    path_ = dir_ + "/notify.sock";
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    path_.copy(address.sun_path, sizeof address.sun_path - 1);
    EXPECT_EQ(bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0)
        << path_ << ": errno " << errno;
    timeval timeout{.tv_sec = 2, .tv_usec = 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  }
  ~NotifySocket() {
    close(fd_);
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  const std::string& path() const { return path_; }

  // The next datagram, or "" after the 2 s timeout.
  std::string Receive() const {
    char buffer[4096];
    const ssize_t n = recv(fd_, buffer, sizeof buffer, 0);
    return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : std::string();
  }

  // Whether a datagram is waiting, without blocking.
  bool Pending() const {
    char byte;
    return recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) >= 0;
  }

 private:
  std::string dir_;
  std::string path_;
  int fd_ = -1;
};

class NotifierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("NOTIFY_SOCKET", socket_.path().c_str(), 1);
    unsetenv("WATCHDOG_USEC");
    unsetenv("WATCHDOG_PID");
  }
  void TearDown() override {
    unsetenv("NOTIFY_SOCKET");
    unsetenv("WATCHDOG_USEC");
    unsetenv("WATCHDOG_PID");
  }

  NotifySocket socket_;
};

TEST_F(NotifierTest, SendsEachStateAsSystemdExpectsIt) {
  Notifier notifier;
  ASSERT_TRUE(notifier.enabled());
  EXPECT_FALSE(notifier.watchdog_ping_every().has_value());

  ASSERT_TRUE(notifier.Ready().ok());
  EXPECT_EQ(socket_.Receive(), "READY=1");
  ASSERT_TRUE(notifier.Status("recommend mode, every 1s: 10 samples\n0 missed").ok());
  EXPECT_EQ(socket_.Receive(), "STATUS=recommend mode, every 1s: 10 samples 0 missed");
  ASSERT_TRUE(notifier.Watchdog().ok());
  EXPECT_EQ(socket_.Receive(), "WATCHDOG=1");
  ASSERT_TRUE(notifier.Stopping().ok());
  EXPECT_EQ(socket_.Receive(), "STOPPING=1");
  EXPECT_FALSE(socket_.Pending());
}

TEST_F(NotifierTest, ReloadingCarriesTheMonotonicClock) {
  Notifier notifier;
  timespec before{};
  clock_gettime(CLOCK_MONOTONIC, &before);
  ASSERT_TRUE(notifier.Reloading().ok());
  const std::string message = socket_.Receive();
  ASSERT_THAT(message, StartsWith("RELOADING=1\nMONOTONIC_USEC="));
  uint64_t usec = 0;
  ASSERT_TRUE(absl::SimpleAtoi(absl::StripPrefix(message, "RELOADING=1\nMONOTONIC_USEC="), &usec))
      << message;
  const uint64_t before_usec = static_cast<uint64_t>(before.tv_sec) * 1'000'000 +
                               static_cast<uint64_t>(before.tv_nsec) / 1000;
  EXPECT_GE(usec, before_usec);
  EXPECT_LT(usec, before_usec + 2'000'000);
}

TEST_F(NotifierTest, PingsTheWatchdogAtHalfItsTimeoutWhenItIsForThisProcess) {
  setenv("WATCHDOG_USEC", "3000000", 1);
  setenv("WATCHDOG_PID", absl::StrCat(getpid()).c_str(), 1);
  Notifier ours;
  ASSERT_TRUE(ours.watchdog_ping_every().has_value());
  EXPECT_EQ(*ours.watchdog_ping_every(), absl::Milliseconds(1500));

  // A watchdog meant for another process (our parent) is not ours to feed.
  setenv("WATCHDOG_PID", absl::StrCat(getppid()).c_str(), 1);
  Notifier theirs;
  EXPECT_FALSE(theirs.watchdog_ping_every().has_value());
}

TEST(NotifierWithoutSocketTest, IsASilentNoOp) {
  unsetenv("NOTIFY_SOCKET");
  Notifier notifier;
  EXPECT_FALSE(notifier.enabled());
  EXPECT_TRUE(notifier.Ready().ok());
  EXPECT_TRUE(notifier.Stopping().ok());
}

TEST(NotifierWithoutSocketTest, AMissingSocketIsAnErrorNamingTheMessageAndErrno) {
  setenv("NOTIFY_SOCKET", "/tmp/nictune_no_such_dir/notify.sock", 1);
  Notifier notifier;
  const absl::Status sent = notifier.Ready();
  unsetenv("NOTIFY_SOCKET");
  ASSERT_FALSE(sent.ok());
  EXPECT_THAT(std::string(sent.message()), HasSubstr("READY=1"));
  EXPECT_THAT(std::string(sent.message()), HasSubstr("(errno 2)"));
}

}  // namespace
}  // namespace nictune::systemd
