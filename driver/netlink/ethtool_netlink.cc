// SPDX-License-Identifier: Apache-2.0
#include "driver/netlink/ethtool_netlink.h"

#include <libmnl/libmnl.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <net/if.h>

#include <optional>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "driver/kernel_name.h"
#include "driver/netlink/attributes.h"

namespace nictune::driver::netlink {
namespace {

// Attributes newer than the installed uapi header (Debian 12 ships the 6.1 one). Values follow
// the kernel's include/uapi/linux/ethtool_netlink{,_generated}.h; the asserts pin the last
// attribute we know the header has, so the numbering below cannot drift silently.
static_assert(ETHTOOL_A_COALESCE_USE_CQE_MODE_RX == 25);
constexpr uint16_t kCoalesceTxAggrMaxBytes = 26;   // 6.2
constexpr uint16_t kCoalesceTxAggrMaxFrames = 27;  // 6.2
constexpr uint16_t kCoalesceTxAggrTimeUsecs = 28;  // 6.2
static_assert(ETHTOOL_A_RINGS_TX_PUSH == 13);
constexpr uint16_t kRingsRxPush = 14;           // 6.2
constexpr uint16_t kRingsTxPushBufLen = 15;     // 6.4
constexpr uint16_t kRingsTxPushBufLenMax = 16;  // 6.4
constexpr uint16_t kRingsHdsThresh = 17;        // 6.14
constexpr uint16_t kRingsHdsThreshMax = 18;     // 6.14

constexpr uint8_t kEthtoolGenlVersion = ETHTOOL_GENL_VERSION;

absl::Status CheckDeviceName(const std::string& device, const RequestContext& context) {
  const std::string bytes = KernelNameBytes(device);
  if (bytes.empty() || bytes.size() >= IFNAMSIZ) {
    return absl::InvalidArgumentError(absl::StrCat(DescribeRequest(context), ": device name '",
                                                   device, "' is empty or longer than ",
                                                   IFNAMSIZ - 1, " characters"));
  }
  return absl::OkStatus();
}

// The request header nest naming the device, which every GET and SET starts with.
void PutDeviceHeader(nlmsghdr& message, uint16_t header_attribute, const std::string& device) {
  nlattr* header = mnl_attr_nest_start(&message, header_attribute);
  mnl_attr_put_strz(&message, ETHTOOL_A_HEADER_DEV_NAME, KernelNameBytes(device).c_str());
  mnl_attr_nest_end(&message, header);
}

// Sends a GET for one device and hands the single reply to `parse`.
template <typename Settings, typename Parse>
absl::StatusOr<Settings> GetOne(GenlSocket& socket, const GenlFamily& family, uint8_t command,
                                uint16_t header_attribute, const RequestContext& context,
                                const std::string& device, Parse parse) {
  if (absl::Status status = CheckDeviceName(device, context); !status.ok()) return status;
  return socket.RequestOne<Settings>(
      context, family.id, command, kEthtoolGenlVersion,
      [&](nlmsghdr& message) { PutDeviceHeader(message, header_attribute, device); },
      [&](const nlmsghdr& message) { return parse(message, device); });
}

// A settings field and its attribute: COALESCE_GET's reply is read and COALESCE_SET is written
// through the same table, so the two cannot disagree.
template <typename Settings, typename Value>
struct AttributeField {
  uint16_t attribute;
  std::string_view name;  // as ethtool(8) names it, for messages
  std::optional<Value> Settings::*field;
};
using CoalesceU32Field = AttributeField<CoalesceSettings, uint32_t>;
using CoalesceBoolField = AttributeField<CoalesceSettings, bool>;
using RingField = AttributeField<RingSettings, uint32_t>;

// Every CoalesceSettings field is settable.
constexpr CoalesceU32Field kCoalesceU32Fields[] = {
    {ETHTOOL_A_COALESCE_RX_USECS, "rx-usecs", &CoalesceSettings::rx_usecs},
    {ETHTOOL_A_COALESCE_RX_MAX_FRAMES, "rx-frames", &CoalesceSettings::rx_max_frames},
    {ETHTOOL_A_COALESCE_RX_USECS_IRQ, "rx-usecs-irq", &CoalesceSettings::rx_usecs_irq},
    {ETHTOOL_A_COALESCE_RX_MAX_FRAMES_IRQ, "rx-frames-irq", &CoalesceSettings::rx_max_frames_irq},
    {ETHTOOL_A_COALESCE_TX_USECS, "tx-usecs", &CoalesceSettings::tx_usecs},
    {ETHTOOL_A_COALESCE_TX_MAX_FRAMES, "tx-frames", &CoalesceSettings::tx_max_frames},
    {ETHTOOL_A_COALESCE_TX_USECS_IRQ, "tx-usecs-irq", &CoalesceSettings::tx_usecs_irq},
    {ETHTOOL_A_COALESCE_TX_MAX_FRAMES_IRQ, "tx-frames-irq", &CoalesceSettings::tx_max_frames_irq},
    {ETHTOOL_A_COALESCE_STATS_BLOCK_USECS, "stats-block-usecs",
     &CoalesceSettings::stats_block_usecs},
    {ETHTOOL_A_COALESCE_PKT_RATE_LOW, "pkt-rate-low", &CoalesceSettings::pkt_rate_low},
    {ETHTOOL_A_COALESCE_RX_USECS_LOW, "rx-usecs-low", &CoalesceSettings::rx_usecs_low},
    {ETHTOOL_A_COALESCE_RX_MAX_FRAMES_LOW, "rx-frames-low", &CoalesceSettings::rx_max_frames_low},
    {ETHTOOL_A_COALESCE_TX_USECS_LOW, "tx-usecs-low", &CoalesceSettings::tx_usecs_low},
    {ETHTOOL_A_COALESCE_TX_MAX_FRAMES_LOW, "tx-frames-low", &CoalesceSettings::tx_max_frames_low},
    {ETHTOOL_A_COALESCE_PKT_RATE_HIGH, "pkt-rate-high", &CoalesceSettings::pkt_rate_high},
    {ETHTOOL_A_COALESCE_RX_USECS_HIGH, "rx-usecs-high", &CoalesceSettings::rx_usecs_high},
    {ETHTOOL_A_COALESCE_RX_MAX_FRAMES_HIGH, "rx-frames-high",
     &CoalesceSettings::rx_max_frames_high},
    {ETHTOOL_A_COALESCE_TX_USECS_HIGH, "tx-usecs-high", &CoalesceSettings::tx_usecs_high},
    {ETHTOOL_A_COALESCE_TX_MAX_FRAMES_HIGH, "tx-frames-high",
     &CoalesceSettings::tx_max_frames_high},
    {ETHTOOL_A_COALESCE_RATE_SAMPLE_INTERVAL, "sample-interval",
     &CoalesceSettings::rate_sample_interval},
    {kCoalesceTxAggrMaxBytes, "tx-aggr-max-bytes", &CoalesceSettings::tx_aggr_max_bytes},
    {kCoalesceTxAggrMaxFrames, "tx-aggr-max-frames", &CoalesceSettings::tx_aggr_max_frames},
    {kCoalesceTxAggrTimeUsecs, "tx-aggr-time-usecs", &CoalesceSettings::tx_aggr_time_usecs},
};
constexpr CoalesceBoolField kCoalesceBoolFields[] = {
    {ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, "adaptive-rx", &CoalesceSettings::use_adaptive_rx},
    {ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX, "adaptive-tx", &CoalesceSettings::use_adaptive_tx},
    {ETHTOOL_A_COALESCE_USE_CQE_MODE_TX, "cqe-mode-tx", &CoalesceSettings::use_cqe_mode_tx},
    {ETHTOOL_A_COALESCE_USE_CQE_MODE_RX, "cqe-mode-rx", &CoalesceSettings::use_cqe_mode_rx},
};

// The ring sizes RINGS_SET takes here; the other RingSettings fields are maxima (read-only) or
// layout settings this project does not manage.
constexpr RingField kRingSizeFields[] = {
    {ETHTOOL_A_RINGS_RX, "rx", &RingSettings::rx},
    {ETHTOOL_A_RINGS_RX_MINI, "rx-mini", &RingSettings::rx_mini},
    {ETHTOOL_A_RINGS_RX_JUMBO, "rx-jumbo", &RingSettings::rx_jumbo},
    {ETHTOOL_A_RINGS_TX, "tx", &RingSettings::tx},
};

// Names of the RingSettings fields a RINGS_SET here refuses, for the InvalidArgument message.
std::string UnsettableRingFields(const RingSettings& change) {
  std::string names;
  auto note = [&names](bool present, std::string_view name) {
    if (!present) return;
    if (!names.empty()) names += ", ";
    names += name;
  };
  note(change.rx_max.has_value(), "rx-max");
  note(change.rx_mini_max.has_value(), "rx-mini-max");
  note(change.rx_jumbo_max.has_value(), "rx-jumbo-max");
  note(change.tx_max.has_value(), "tx-max");
  note(change.rx_buf_len.has_value(), "rx-buf-len");
  note(change.tcp_data_split.has_value(), "tcp-data-split");
  note(change.cqe_size.has_value(), "cqe-size");
  note(change.tx_push.has_value(), "tx-push");
  note(change.rx_push.has_value(), "rx-push");
  note(change.tx_push_buf_len.has_value(), "tx-push-buf-len");
  note(change.tx_push_buf_len_max.has_value(), "tx-push-buf-len-max");
  note(change.hds_thresh.has_value(), "hds-thresh");
  note(change.hds_thresh_max.has_value(), "hds-thresh-max");
  return names;
}

absl::Status CheckCoalesceChange(const CoalesceSettings& change, const std::string& device) {
  for (const CoalesceU32Field& f : kCoalesceU32Fields) {
    if ((change.*f.field).has_value()) return absl::OkStatus();
  }
  for (const CoalesceBoolField& f : kCoalesceBoolFields) {
    if ((change.*f.field).has_value()) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("ethtool netlink COALESCE_SET ", device, ": no setting to change"));
}

absl::Status CheckRingsChange(const RingSettings& change, const std::string& device) {
  const std::string what = absl::StrCat("ethtool netlink RINGS_SET ", device);
  if (std::string refused = UnsettableRingFields(change); !refused.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": cannot set ", refused, " (only rx, rx-mini, rx-jumbo, tx)"));
  }
  for (const RingField& f : kRingSizeFields) {
    if ((change.*f.field).has_value()) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(what, ": no setting to change"));
}

// The SET attributes of the present fields, for a change already checked.
void AppendCoalesceChange(nlmsghdr& message, const CoalesceSettings& change) {
  for (const CoalesceU32Field& f : kCoalesceU32Fields) {
    if (const std::optional<uint32_t>& value = change.*f.field) {
      mnl_attr_put_u32(&message, f.attribute, *value);
    }
  }
  for (const CoalesceBoolField& f : kCoalesceBoolFields) {
    if (const std::optional<bool>& value = change.*f.field) {
      mnl_attr_put_u8(&message, f.attribute, *value ? 1 : 0);
    }
  }
}

void AppendRingsChange(nlmsghdr& message, const RingSettings& change) {
  for (const RingField& f : kRingSizeFields) {
    if (const std::optional<uint32_t>& value = change.*f.field) {
      mnl_attr_put_u32(&message, f.attribute, *value);
    }
  }
}

// Sends a SET for one device: the request header nest, then `put_change`. The kernel answers
// with an ack only.
template <typename PutChange>
absl::Status SetOne(GenlSocket& socket, const GenlFamily& family, uint8_t command,
                    uint16_t header_attribute, const RequestContext& context,
                    const std::string& device, PutChange put_change) {
  if (absl::Status status = CheckDeviceName(device, context); !status.ok()) return status;
  return socket.Request(
      context, family.id, command, kEthtoolGenlVersion, /*dump=*/false,
      [&](nlmsghdr& message) {
        PutDeviceHeader(message, header_attribute, device);
        put_change(message);
      },
      [](const nlmsghdr&) { return absl::OkStatus(); });
}

}  // namespace

absl::StatusOr<EthtoolNetlink> EthtoolNetlink::Open(GenlSocket socket) {
  absl::StatusOr<GenlFamily> family = socket.ResolveFamily(ETHTOOL_GENL_NAME);
  if (!family.ok()) return family.status();
  return EthtoolNetlink(std::move(socket), *std::move(family));
}

absl::StatusOr<CoalesceSettings> EthtoolNetlink::GetCoalesce(const std::string& device) {
  const RequestContext context{"ethtool", "COALESCE_GET", device};
  return GetOne<CoalesceSettings>(socket_, family_, ETHTOOL_MSG_COALESCE_GET,
                                  ETHTOOL_A_COALESCE_HEADER, context, device, ParseCoalesceReply);
}

absl::StatusOr<RingSettings> EthtoolNetlink::GetRings(const std::string& device) {
  const RequestContext context{"ethtool", "RINGS_GET", device};
  return GetOne<RingSettings>(socket_, family_, ETHTOOL_MSG_RINGS_GET, ETHTOOL_A_RINGS_HEADER,
                              context, device, ParseRingsReply);
}

absl::Status EthtoolNetlink::SetCoalesce(const std::string& device,
                                         const CoalesceSettings& change) {
  const RequestContext context{"ethtool", "COALESCE_SET", device};
  if (absl::Status status = CheckCoalesceChange(change, device); !status.ok()) return status;
  return SetOne(socket_, family_, ETHTOOL_MSG_COALESCE_SET, ETHTOOL_A_COALESCE_HEADER, context,
                device, [&](nlmsghdr& message) { AppendCoalesceChange(message, change); });
}

absl::Status EthtoolNetlink::SetRings(const std::string& device, const RingSettings& change) {
  const RequestContext context{"ethtool", "RINGS_SET", device};
  if (absl::Status status = CheckRingsChange(change, device); !status.ok()) return status;
  return SetOne(socket_, family_, ETHTOOL_MSG_RINGS_SET, ETHTOOL_A_RINGS_HEADER, context, device,
                [&](nlmsghdr& message) { AppendRingsChange(message, change); });
}

absl::Status PutCoalesceChange(nlmsghdr& message, const CoalesceSettings& change,
                               const std::string& device) {
  if (absl::Status status = CheckCoalesceChange(change, device); !status.ok()) return status;
  AppendCoalesceChange(message, change);
  return absl::OkStatus();
}

absl::Status PutRingsChange(nlmsghdr& message, const RingSettings& change,
                            const std::string& device) {
  if (absl::Status status = CheckRingsChange(change, device); !status.ok()) return status;
  AppendRingsChange(message, change);
  return absl::OkStatus();
}

absl::StatusOr<CoalesceSettings> ParseCoalesceReply(const nlmsghdr& message,
                                                    const std::string& device) {
  AttributeReader a = AttributeReader::FromMessage(
      message, sizeof(genlmsghdr), absl::StrCat("ethtool netlink COALESCE_GET ", device));
  CoalesceSettings s;
  s.device = device;
  s.source = kEthtoolNetlinkSource;
  for (const CoalesceU32Field& f : kCoalesceU32Fields) s.*f.field = a.U32(f.attribute, f.name);
  for (const CoalesceBoolField& f : kCoalesceBoolFields) s.*f.field = a.Bool(f.attribute, f.name);
  if (!a.status().ok()) return a.status();
  return s;
}

absl::StatusOr<RingSettings> ParseRingsReply(const nlmsghdr& message, const std::string& device) {
  AttributeReader a = AttributeReader::FromMessage(
      message, sizeof(genlmsghdr), absl::StrCat("ethtool netlink RINGS_GET ", device));
  RingSettings s;
  s.device = device;
  s.source = kEthtoolNetlinkSource;
  s.rx = a.U32(ETHTOOL_A_RINGS_RX, "rx");
  s.rx_max = a.U32(ETHTOOL_A_RINGS_RX_MAX, "rx-max");
  s.rx_mini = a.U32(ETHTOOL_A_RINGS_RX_MINI, "rx-mini");
  s.rx_mini_max = a.U32(ETHTOOL_A_RINGS_RX_MINI_MAX, "rx-mini-max");
  s.rx_jumbo = a.U32(ETHTOOL_A_RINGS_RX_JUMBO, "rx-jumbo");
  s.rx_jumbo_max = a.U32(ETHTOOL_A_RINGS_RX_JUMBO_MAX, "rx-jumbo-max");
  s.tx = a.U32(ETHTOOL_A_RINGS_TX, "tx");
  s.tx_max = a.U32(ETHTOOL_A_RINGS_TX_MAX, "tx-max");
  s.rx_buf_len = a.U32(ETHTOOL_A_RINGS_RX_BUF_LEN, "rx-buf-len");
  s.tcp_data_split = a.U8(ETHTOOL_A_RINGS_TCP_DATA_SPLIT, "tcp-data-split");
  s.cqe_size = a.U32(ETHTOOL_A_RINGS_CQE_SIZE, "cqe-size");
  s.tx_push = a.Bool(ETHTOOL_A_RINGS_TX_PUSH, "tx-push");
  s.rx_push = a.Bool(kRingsRxPush, "rx-push");
  s.tx_push_buf_len = a.U32(kRingsTxPushBufLen, "tx-push-buf-len");
  s.tx_push_buf_len_max = a.U32(kRingsTxPushBufLenMax, "tx-push-buf-len-max");
  s.hds_thresh = a.U32(kRingsHdsThresh, "hds-thresh");
  s.hds_thresh_max = a.U32(kRingsHdsThreshMax, "hds-thresh-max");
  if (!a.status().ok()) return a.status();
  return s;
}

}  // namespace nictune::driver::netlink
