// SPDX-License-Identifier: Apache-2.0
// The sock_diag client against the running kernel: a loopback UDP socket that is never read
// shows the queued bytes, buffer and drops its own SO_MEMINFO shows; and malformed replies are
// errors that say what was short.
#include "driver/netlink/sock_diag.h"

#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstring>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::driver::netlink {
namespace {

using ::testing::HasSubstr;

class LoopbackSocket {
 public:
  LoopbackSocket() : fd_(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {}
  ~LoopbackSocket() { close(fd_); }
  int fd() const { return fd_; }

 private:
  int fd_;
};

TEST(SockDiagTest, AnUnreadSocketShowsWhatItsOwnMemInfoShows) {
  LoopbackSocket receiver;
  LoopbackSocket sender;
  const int rcvbuf = 4096;
  ASSERT_EQ(setsockopt(receiver.fd(), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf), 0);
  sockaddr_in address{.sin_family = AF_INET, .sin_port = 0, .sin_addr = {htonl(INADDR_LOOPBACK)}};
  ASSERT_EQ(bind(receiver.fd(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  socklen_t length = sizeof address;
  ASSERT_EQ(getsockname(receiver.fd(), reinterpret_cast<sockaddr*>(&address), &length), 0);
  const std::array<char, 100> payload{};
  for (int i = 0; i < 200; ++i) {
    ASSERT_EQ(sendto(sender.fd(), payload.data(), payload.size(), 0,
                     reinterpret_cast<sockaddr*>(&address), sizeof address),
              static_cast<ssize_t>(payload.size()));
  }
  std::array<uint32_t, SK_MEMINFO_VARS> meminfo{};
  socklen_t meminfo_length = sizeof meminfo;
  ASSERT_EQ(getsockopt(receiver.fd(), SOL_SOCKET, SO_MEMINFO, meminfo.data(), &meminfo_length), 0);
  uint64_t cookie = 0;
  socklen_t cookie_length = sizeof cookie;
  ASSERT_EQ(getsockopt(receiver.fd(), SOL_SOCKET, SO_COOKIE, &cookie, &cookie_length), 0);

  absl::StatusOr<SockDiagSocket> diag = SockDiagSocket::Open(/*netns_inode=*/1);
  ASSERT_TRUE(diag.ok()) << diag.status();
  std::optional<SocketMemory> found;
  ASSERT_TRUE(diag->DumpUdp(AF_INET, [&](const SocketMemory& s) {
                     if (s.cookie == cookie) found = s;
                   }).ok());
  ASSERT_TRUE(found.has_value()) << "no socket with cookie " << cookie;
  EXPECT_GT(meminfo[SK_MEMINFO_DROPS], 0u) << "200 datagrams did not overflow 4096 bytes";
  EXPECT_EQ(found->rmem_alloc, meminfo[SK_MEMINFO_RMEM_ALLOC]);
  EXPECT_EQ(found->rcvbuf, meminfo[SK_MEMINFO_RCVBUF]);
  EXPECT_EQ(found->drops, meminfo[SK_MEMINFO_DROPS]);
  EXPECT_EQ(found->local_port, ntohs(address.sin_port));
  EXPECT_EQ(found->netns_inode, 1u);
  EXPECT_EQ(found->family, AF_INET);
}

TEST(SockDiagTest, AReplyShorterThanItsHeaderIsAnErrorSayingSo) {
  alignas(nlmsghdr) std::array<char, NLMSG_HDRLEN + 8> buffer{};
  auto* reply = reinterpret_cast<nlmsghdr*>(buffer.data());
  reply->nlmsg_len = static_cast<uint32_t>(buffer.size());
  reply->nlmsg_type = SOCK_DIAG_BY_FAMILY;
  const absl::StatusOr<SocketMemory> parsed = ParseInetDiagReply(*reply, 0);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(parsed.status().message(), HasSubstr("shorter than its header"));
}

}  // namespace
}  // namespace nictune::driver::netlink
