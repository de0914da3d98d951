// SPDX-License-Identifier: Apache-2.0
// ethtool COALESCE_GET / RINGS_GET against the real kernel, read-only: eth0 (virtio_net here)
// must answer and agree with the independent SIOCETHTOOL path; lo must say "unsupported".
#include <net/if.h>

#include <filesystem>

#include "driver/netlink/ethtool_ioctl.h"
#include "driver/netlink/ethtool_netlink.h"
#include "driver/netlink/ethtool_reader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::driver::netlink {
namespace {

using ::testing::HasSubstr;

constexpr char kRealNic[] = "eth0";

bool HaveRealNic() { return std::filesystem::exists(std::string("/sys/class/net/") + kRealNic); }

// Every field netlink reported must equal the ioctl's value for it.
template <typename T>
void ExpectSameWhereReported(const std::optional<T>& netlink, const std::optional<T>& ioctl,
                             const char* field) {
  if (!netlink) return;
  ASSERT_TRUE(ioctl.has_value()) << field;
  EXPECT_EQ(*netlink, *ioctl) << field;
}

TEST(EthtoolNetlinkTest, CoalesceOnTheRealNicAgreesWithTheIoctl) {
  if (!HaveRealNic()) GTEST_SKIP() << "no " << kRealNic << " on this host";
  absl::StatusOr<CoalesceSettings> netlink = ReadCoalesce(kRealNic);
  ASSERT_TRUE(netlink.ok()) << netlink.status();
  EXPECT_EQ(netlink->source, kEthtoolNetlinkSource);
  EXPECT_EQ(netlink->device, kRealNic);
  absl::StatusOr<CoalesceSettings> ioctl = GetCoalesceByIoctl(kRealNic);
  ASSERT_TRUE(ioctl.ok()) << ioctl.status();
  EXPECT_EQ(ioctl->source, kEthtoolIoctlSource);

  // virtio_net supports rx/tx usecs and frames (and DIM on adaptive-rx): these must be there.
  ASSERT_TRUE(netlink->rx_usecs.has_value());
  ASSERT_TRUE(netlink->rx_max_frames.has_value());
  ASSERT_TRUE(netlink->tx_usecs.has_value());
  ASSERT_TRUE(netlink->tx_max_frames.has_value());
  // ... and not ixgbe-style rate bands: absent means "not supported", not zero.
  EXPECT_FALSE(netlink->pkt_rate_low.has_value());
  EXPECT_FALSE(netlink->rx_usecs_high.has_value());

  ExpectSameWhereReported(netlink->rx_usecs, ioctl->rx_usecs, "rx_usecs");
  ExpectSameWhereReported(netlink->rx_max_frames, ioctl->rx_max_frames, "rx_max_frames");
  ExpectSameWhereReported(netlink->tx_usecs, ioctl->tx_usecs, "tx_usecs");
  ExpectSameWhereReported(netlink->tx_max_frames, ioctl->tx_max_frames, "tx_max_frames");
  ExpectSameWhereReported(netlink->use_adaptive_rx, ioctl->use_adaptive_rx, "use_adaptive_rx");
  ExpectSameWhereReported(netlink->use_adaptive_tx, ioctl->use_adaptive_tx, "use_adaptive_tx");
  ExpectSameWhereReported(netlink->rx_usecs_irq, ioctl->rx_usecs_irq, "rx_usecs_irq");
  ExpectSameWhereReported(netlink->rate_sample_interval, ioctl->rate_sample_interval,
                          "rate_sample_interval");
}

TEST(EthtoolNetlinkTest, RingsOnTheRealNicAgreeWithTheIoctl) {
  if (!HaveRealNic()) GTEST_SKIP() << "no " << kRealNic << " on this host";
  absl::StatusOr<RingSettings> netlink = ReadRings(kRealNic);
  ASSERT_TRUE(netlink.ok()) << netlink.status();
  EXPECT_EQ(netlink->source, kEthtoolNetlinkSource);
  absl::StatusOr<RingSettings> ioctl = GetRingsByIoctl(kRealNic);
  ASSERT_TRUE(ioctl.ok()) << ioctl.status();
  ASSERT_TRUE(netlink->rx && netlink->rx_max && netlink->tx && netlink->tx_max);
  EXPECT_GT(*netlink->rx, 0u);
  EXPECT_LE(*netlink->rx, *netlink->rx_max);
  EXPECT_LE(*netlink->tx, *netlink->tx_max);
  EXPECT_EQ(*netlink->rx, *ioctl->rx);
  EXPECT_EQ(*netlink->rx_max, *ioctl->rx_max);
  EXPECT_EQ(*netlink->tx, *ioctl->tx);
  EXPECT_EQ(*netlink->tx_max, *ioctl->tx_max);
}

TEST(EthtoolNetlinkTest, DriverNameOfTheRealNicMatchesSysfs) {
  if (!HaveRealNic()) GTEST_SKIP() << "no " << kRealNic << " on this host";
  absl::StatusOr<std::string> driver = GetDriverName(kRealNic);
  ASSERT_TRUE(driver.ok()) << driver.status();
  const std::filesystem::path link =
      std::filesystem::read_symlink(std::string("/sys/class/net/") + kRealNic + "/device/driver");
  EXPECT_EQ(*driver, link.filename().native());
}

TEST(EthtoolNetlinkTest, LoopbackCoalesceIsUnimplementedNamingTheDriver) {
  absl::StatusOr<CoalesceSettings> settings = ReadCoalesce("lo");
  ASSERT_FALSE(settings.ok());
  EXPECT_EQ(settings.status().code(), absl::StatusCode::kUnimplemented) << settings.status();
  EXPECT_THAT(settings.status().message(), HasSubstr("not supported by"));
  EXPECT_THAT(settings.status().message(), HasSubstr("ethtool netlink COALESCE_GET lo"));
  EXPECT_THAT(settings.status().message(), HasSubstr("(errno 95)"));
  // The ioctl path agrees that lo has no coalescing.
  EXPECT_EQ(GetCoalesceByIoctl("lo").status().code(), absl::StatusCode::kUnimplemented);
}

TEST(EthtoolNetlinkTest, LoopbackRingsAreUnimplemented) {
  absl::StatusOr<RingSettings> settings = ReadRings("lo");
  ASSERT_FALSE(settings.ok());
  EXPECT_EQ(settings.status().code(), absl::StatusCode::kUnimplemented) << settings.status();
  EXPECT_THAT(settings.status().message(), HasSubstr("ethtool netlink RINGS_GET lo"));
}

TEST(EthtoolNetlinkTest, MissingDeviceIsNotFoundNamingIt) {
  absl::StatusOr<CoalesceSettings> settings = ReadCoalesce("nictune-none0");
  ASSERT_FALSE(settings.ok());
  EXPECT_EQ(settings.status().code(), absl::StatusCode::kNotFound) << settings.status();
  EXPECT_THAT(settings.status().message(), HasSubstr("COALESCE_GET nictune-none0"));
  EXPECT_THAT(settings.status().message(), HasSubstr("(errno 19)"));
}

TEST(EthtoolNetlinkTest, OverlongDeviceNameIsRejectedBeforeAsking) {
  const std::string name(IFNAMSIZ, 'x');
  EXPECT_EQ(ReadRings(name).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(GetRingsByIoctl(name).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace nictune::driver::netlink
