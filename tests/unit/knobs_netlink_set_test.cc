// SPDX-License-Identifier: Apache-2.0
// What the SET requests carry: exactly the attributes of the fields being changed (so a write of
// rx-usecs never re-asserts rx-frames or adaptive-rx), with the kernel's types and sizes, and
// refusals for changes the kernel would reject, before anything is sent.
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

#include "driver/netlink/ethtool_netlink.h"
#include "driver/netlink/netdev_netlink.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace nictune::driver::netlink {
namespace {

using ::testing::HasSubstr;

constexpr size_t kMessageHeaders = sizeof(nlmsghdr) + sizeof(genlmsghdr);  // both 4-aligned
constexpr size_t kAttributeHeader = sizeof(nlattr);
constexpr size_t Align4(size_t bytes) { return (bytes + 3) & ~size_t{3}; }

// A request buffer as GenlSocket builds it: netlink header + genetlink header, then attributes.
class Message {
 public:
  Message() { header()->nlmsg_len = static_cast<uint32_t>(kMessageHeaders); }
  nlmsghdr* header() { return reinterpret_cast<nlmsghdr*>(buffer_.data()); }

  // type -> payload bytes of every top-level attribute after the genetlink header.
  std::map<uint16_t, std::vector<uint8_t>> Attributes() {
    std::map<uint16_t, std::vector<uint8_t>> out;
    size_t offset = kMessageHeaders;
    const size_t end = header()->nlmsg_len;
    while (offset + kAttributeHeader <= end) {
      nlattr attribute{};
      std::memcpy(&attribute, buffer_.data() + offset, sizeof attribute);
      const size_t payload = attribute.nla_len - kAttributeHeader;
      const auto* start =
          reinterpret_cast<const uint8_t*>(buffer_.data()) + offset + kAttributeHeader;
      out[static_cast<uint16_t>(attribute.nla_type & NLA_TYPE_MASK)] =
          std::vector<uint8_t>(start, start + payload);
      offset += Align4(attribute.nla_len);
    }
    return out;
  }
  uint32_t length() { return header()->nlmsg_len; }

 private:
  alignas(nlmsghdr) std::vector<char> buffer_ = std::vector<char>(4096, 0);
};

uint32_t U32(const std::vector<uint8_t>& bytes) {
  uint32_t value = 0;
  EXPECT_EQ(bytes.size(), sizeof value);
  std::memcpy(&value, bytes.data(), std::min(bytes.size(), sizeof value));
  return value;
}

TEST(EthtoolSetMessageTest, OneKnobSendsOneAttribute) {
  CoalesceSettings change;
  change.rx_usecs = 84;
  Message message;
  ASSERT_TRUE(PutCoalesceChange(*message.header(), change, "eth9").ok());
  const auto attributes = message.Attributes();
  ASSERT_EQ(attributes.size(), 1u);
  ASSERT_EQ(attributes.count(ETHTOOL_A_COALESCE_RX_USECS), 1u);
  EXPECT_EQ(U32(attributes.at(ETHTOOL_A_COALESCE_RX_USECS)), 84u);

  CoalesceSettings adaptive;
  adaptive.use_adaptive_rx = true;
  Message second;
  ASSERT_TRUE(PutCoalesceChange(*second.header(), adaptive, "eth9").ok());
  const auto flags = second.Attributes();
  ASSERT_EQ(flags.size(), 1u);
  ASSERT_EQ(flags.count(ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX), 1u);
  EXPECT_EQ(flags.at(ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX), std::vector<uint8_t>{1});
}

TEST(EthtoolSetMessageTest, SeveralFieldsSendExactlyThose) {
  CoalesceSettings change;
  change.rx_max_frames = 32;
  change.tx_usecs = 0;  // zero is a value, not absent
  change.use_adaptive_tx = false;
  Message message;
  ASSERT_TRUE(PutCoalesceChange(*message.header(), change, "eth9").ok());
  const auto attributes = message.Attributes();
  ASSERT_EQ(attributes.size(), 3u);
  EXPECT_EQ(U32(attributes.at(ETHTOOL_A_COALESCE_RX_MAX_FRAMES)), 32u);
  EXPECT_EQ(U32(attributes.at(ETHTOOL_A_COALESCE_TX_USECS)), 0u);
  EXPECT_EQ(attributes.at(ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX), std::vector<uint8_t>{0});
}

TEST(EthtoolSetMessageTest, AnEmptyChangeIsRefusedAndNothingIsAppended) {
  Message message;
  const uint32_t before = message.length();
  CoalesceSettings nothing;
  nothing.device = "eth9";  // identity fields are not settings
  const absl::Status status = PutCoalesceChange(*message.header(), nothing, "eth9");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("COALESCE_SET eth9: no setting to change"));
  EXPECT_EQ(message.length(), before);
}

TEST(EthtoolSetMessageTest, RingsSendOnlyTheSizesAndRefuseMaxima) {
  RingSettings change;
  change.rx = 512;
  Message message;
  ASSERT_TRUE(PutRingsChange(*message.header(), change, "eth9").ok());
  const auto attributes = message.Attributes();
  ASSERT_EQ(attributes.size(), 1u);
  EXPECT_EQ(U32(attributes.at(ETHTOOL_A_RINGS_RX)), 512u);

  // Settings read back from RINGS_GET carry the maxima: they are not something to set.
  change.rx_max = 4096;
  Message refused;
  const uint32_t before = refused.length();
  const absl::Status status = PutRingsChange(*refused.header(), change, "eth9");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("cannot set rx-max"));
  EXPECT_EQ(refused.length(), before);
}

TEST(NapiSetMessageTest, SendsTheIdAndOnlyTheChangedSettings) {
  // Attribute numbers of include/uapi/linux/netdev.h (NETDEV_A_NAPI_*).
  constexpr uint16_t kId = 2;
  constexpr uint16_t kDeferHardIrqs = 5;
  constexpr uint16_t kGroFlushTimeout = 6;
  constexpr uint16_t kIrqSuspendTimeout = 7;
  NapiConfigChange change;
  change.napi_id = 8193;
  change.defer_hard_irqs = 3;
  Message message;
  ASSERT_TRUE(PutNapiChange(*message.header(), change).ok());
  auto attributes = message.Attributes();
  ASSERT_EQ(attributes.size(), 2u);
  EXPECT_EQ(U32(attributes.at(kId)), 8193u);
  EXPECT_EQ(U32(attributes.at(kDeferHardIrqs)), 3u);

  // "uint" attributes take 4 bytes when the value fits and 8 when it does not.
  NapiConfigChange timeouts;
  timeouts.napi_id = 8194;
  timeouts.gro_flush_timeout_ns = 20000;
  timeouts.irq_suspend_timeout_ns = 5'000'000'000;
  Message second;
  ASSERT_TRUE(PutNapiChange(*second.header(), timeouts).ok());
  attributes = second.Attributes();
  ASSERT_EQ(attributes.size(), 3u);
  EXPECT_EQ(U32(attributes.at(kGroFlushTimeout)), 20000u);
  ASSERT_EQ(attributes.at(kIrqSuspendTimeout).size(), 8u);
  uint64_t suspend = 0;
  std::memcpy(&suspend, attributes.at(kIrqSuspendTimeout).data(), sizeof suspend);
  EXPECT_EQ(suspend, 5'000'000'000u);
}

TEST(NapiSetMessageTest, RefusesWhatTheKernelsPolicyWouldReject) {
  NapiConfigChange change;
  change.napi_id = 8193;
  Message message;
  EXPECT_EQ(PutNapiChange(*message.header(), change).code(), absl::StatusCode::kInvalidArgument);
  change.defer_hard_irqs = 2147483648u;  // above S32_MAX
  const absl::Status status = PutNapiChange(*message.header(), change);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("napi-set napi 8193: defer-hard-irqs"));
  EXPECT_TRUE(message.Attributes().empty());
}

}  // namespace
}  // namespace nictune::driver::netlink
