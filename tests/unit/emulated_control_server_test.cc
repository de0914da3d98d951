// SPDX-License-Identifier: Apache-2.0
// The emulated NIC's control socket: a client that sends its requests and shuts its side down at
// once (`printf 'SET ...\n' | socat - UNIX-CONNECT:...`, as `nictune recommend --as=ethtool`
// prints) has every request answered before the server drops it.
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "driver/emulated/nic/control_server.h"
#include "gtest/gtest.h"

namespace nictune::driver::emulated {
namespace {

int ConnectTo(const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

std::string ReadToEnd(int fd) {
  std::string out;
  char buffer[256];
  ssize_t n = 0;
  while ((n = read(fd, buffer, sizeof(buffer))) > 0) out.append(buffer, static_cast<size_t>(n));
  return out;
}

TEST(ControlServerTest, RequestsAndTheirEndOfFileInOneWakeUpAreAllAnswered) {
  const int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  ASSERT_GE(epoll_fd, 0);
  const std::string path = absl::StrCat("/tmp/nictune-control-test-", getpid(), ".sock");
  auto server = ControlServer::Listen(path, epoll_fd);
  ASSERT_TRUE(server.ok()) << server.status();

  const int client = ConnectTo(path);
  ASSERT_GE(client, 0) << std::strerror(errno);
  const std::string requests = "SET rx_usecs 50\nGET rx_usecs\n";
  ASSERT_EQ(write(client, requests.data(), requests.size()), static_cast<ssize_t>(requests.size()));
  ASSERT_EQ(shutdown(client, SHUT_WR), 0);  // the requests and the end of file are both queued

  (*server)->AcceptAll();
  std::vector<std::string> handled;
  epoll_event events[4];
  const int ready = epoll_wait(epoll_fd, events, 4, 5000);
  for (int i = 0; i < ready; ++i) {
    if ((*server)->IsClient(events[i].data.fd)) {
      (*server)->Serve(events[i].data.fd, [&](const ControlRequest& request) {
        handled.push_back(request.key);
        return std::string("OK 50");
      });
    }
  }
  EXPECT_EQ(handled, (std::vector<std::string>{"rx_usecs", "rx_usecs"}));
  EXPECT_EQ(ReadToEnd(client), "OK 50\nOK 50\n") << "the server dropped the client unanswered";
  close(client);
  server->reset();
  close(epoll_fd);
}

}  // namespace
}  // namespace nictune::driver::emulated
