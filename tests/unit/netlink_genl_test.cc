// SPDX-License-Identifier: Apache-2.0
// The generic-netlink client against the running kernel's controller, and the errno mapping.
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include <cerrno>

#include "driver/netlink/genl_socket.h"
#include "driver/netlink/netlink_error.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::driver::netlink {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

TEST(GenlSocketTest, ResolvesTheControllerFamilyItself) {
  absl::StatusOr<GenlSocket> socket = GenlSocket::Open();
  ASSERT_TRUE(socket.ok()) << socket.status();
  absl::StatusOr<GenlFamily> family = socket->ResolveFamily("nlctrl");
  ASSERT_TRUE(family.ok()) << family.status();
  EXPECT_EQ(family->id, GENL_ID_CTRL);
  EXPECT_THAT(family->commands, Contains(static_cast<uint32_t>(CTRL_CMD_GETFAMILY)));
}

TEST(GenlSocketTest, ResolvesEthtoolWithItsGetCommands) {
  absl::StatusOr<GenlSocket> socket = GenlSocket::Open();
  ASSERT_TRUE(socket.ok()) << socket.status();
  absl::StatusOr<GenlFamily> family = socket->ResolveFamily(ETHTOOL_GENL_NAME);
  ASSERT_TRUE(family.ok()) << family.status();
  EXPECT_GE(family->id, GENL_MIN_ID);
  EXPECT_TRUE(FamilyHasCommand(*family, ETHTOOL_MSG_COALESCE_GET));
  EXPECT_TRUE(FamilyHasCommand(*family, ETHTOOL_MSG_RINGS_GET));
  EXPECT_FALSE(FamilyHasCommand(*family, 250));
}

TEST(GenlSocketTest, UnknownFamilyIsNotFoundAndNamesIt) {
  absl::StatusOr<GenlSocket> socket = GenlSocket::Open();
  ASSERT_TRUE(socket.ok()) << socket.status();
  absl::StatusOr<GenlFamily> family = socket->ResolveFamily("nictunenofam");
  ASSERT_FALSE(family.ok());
  EXPECT_EQ(family.status().code(), absl::StatusCode::kNotFound) << family.status();
  EXPECT_THAT(std::string(family.status().message()),
              HasSubstr("nlctrl netlink GETFAMILY nictunenofam"));
  EXPECT_THAT(std::string(family.status().message()), HasSubstr("(errno 2)"));
  // The socket stays usable after an error reply.
  EXPECT_TRUE(socket->ResolveFamily("nlctrl").ok());
}

TEST(GenlSocketTest, KernelsExtendedAckTextIsKept) {
  absl::StatusOr<GenlSocket> socket = GenlSocket::Open();
  ASSERT_TRUE(socket.ok()) << socket.status();
  // GENL_NAMSIZ is 16 with the NUL: a 16-character name fails the kernel's attribute policy,
  // and the kernel says so in an extended ack.
  absl::StatusOr<GenlFamily> family = socket->ResolveFamily("nictune-nofamily");
  ASSERT_FALSE(family.ok());
  EXPECT_EQ(family.status().code(), absl::StatusCode::kInvalidArgument) << family.status();
  EXPECT_THAT(std::string(family.status().message()),
              HasSubstr("(errno 22): Attribute failed policy validation"));
}

TEST(GenlSocketTest, SocketSurvivesBeingMoved) {
  absl::StatusOr<GenlSocket> socket = GenlSocket::Open();
  ASSERT_TRUE(socket.ok()) << socket.status();
  GenlSocket moved = *std::move(socket);
  EXPECT_TRUE(moved.ResolveFamily("nlctrl").ok());
}

TEST(NetlinkErrorTest, MapsErrnoToCodeAndNamesEverything) {
  const std::string what = DescribeRequest(RequestContext{"ethtool", "COALESCE_GET", "eth0"});
  EXPECT_EQ(what, "ethtool netlink COALESCE_GET eth0");
  absl::Status status = ErrnoStatus(what, EOPNOTSUPP);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(status.message(),
            "ethtool netlink COALESCE_GET eth0: Operation not supported (errno 95)");
  status = ErrnoStatus(what, ENODEV, "no device matches name");
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(),
            "ethtool netlink COALESCE_GET eth0: No such device (errno 19): no device matches name");
  EXPECT_EQ(ErrnoStatus(what, EPERM).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(ErrnoStatus(what, EINVAL).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ErrnoStatus(what, EBUSY).code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(ErrnoStatus(what, EIO).code(), absl::StatusCode::kInternal);
  EXPECT_EQ(DescribeRequest(RequestContext{"netdev", "napi-get", ""}), "netdev netlink napi-get");
}

}  // namespace
}  // namespace nictune::driver::netlink
