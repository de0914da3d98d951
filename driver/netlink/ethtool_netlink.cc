#include "driver/netlink/ethtool_netlink.h"

#include <libmnl/libmnl.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <net/if.h>

#include <optional>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
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
  if (device.empty() || device.size() >= IFNAMSIZ) {
    return absl::InvalidArgumentError(absl::StrCat(DescribeRequest(context), ": device name '",
                                                   device, "' is empty or longer than ",
                                                   IFNAMSIZ - 1, " characters"));
  }
  return absl::OkStatus();
}

// Sends a GET for one device and hands the single reply to `parse`.
template <typename Settings, typename Parse>
absl::StatusOr<Settings> GetOne(GenlSocket& socket, const GenlFamily& family, uint8_t command,
                                uint16_t header_attribute, const RequestContext& context,
                                const std::string& device, Parse parse) {
  if (absl::Status status = CheckDeviceName(device, context); !status.ok()) return status;
  std::optional<Settings> settings;
  absl::Status status = socket.Request(
      context, family.id, command, kEthtoolGenlVersion, /*dump=*/false,
      [&](nlmsghdr& message) {
        nlattr* header = mnl_attr_nest_start(&message, header_attribute);
        mnl_attr_put_strz(&message, ETHTOOL_A_HEADER_DEV_NAME, device.c_str());
        mnl_attr_nest_end(&message, header);
      },
      [&](const nlmsghdr& message) -> absl::Status {
        absl::StatusOr<Settings> parsed = parse(message, device);
        if (!parsed.ok()) return parsed.status();
        settings = *std::move(parsed);
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  if (!settings) {
    return absl::DataLossError(
        absl::StrCat(DescribeRequest(context), ": kernel acked without a reply"));
  }
  return *std::move(settings);
}

// The COALESCE_SET attribute of each settable field. Every field CoalesceSettings has is settable.
struct CoalesceU32Field {
  uint16_t attribute;
  std::optional<uint32_t> CoalesceSettings::*field;
};
struct CoalesceBoolField {
  uint16_t attribute;
  std::optional<bool> CoalesceSettings::*field;
};

constexpr CoalesceU32Field kCoalesceU32Fields[] = {
    {ETHTOOL_A_COALESCE_RX_USECS, &CoalesceSettings::rx_usecs},
    {ETHTOOL_A_COALESCE_RX_MAX_FRAMES, &CoalesceSettings::rx_max_frames},
    {ETHTOOL_A_COALESCE_RX_USECS_IRQ, &CoalesceSettings::rx_usecs_irq},
    {ETHTOOL_A_COALESCE_RX_MAX_FRAMES_IRQ, &CoalesceSettings::rx_max_frames_irq},
    {ETHTOOL_A_COALESCE_TX_USECS, &CoalesceSettings::tx_usecs},
    {ETHTOOL_A_COALESCE_TX_MAX_FRAMES, &CoalesceSettings::tx_max_frames},
    {ETHTOOL_A_COALESCE_TX_USECS_IRQ, &CoalesceSettings::tx_usecs_irq},
    {ETHTOOL_A_COALESCE_TX_MAX_FRAMES_IRQ, &CoalesceSettings::tx_max_frames_irq},
    {ETHTOOL_A_COALESCE_STATS_BLOCK_USECS, &CoalesceSettings::stats_block_usecs},
    {ETHTOOL_A_COALESCE_PKT_RATE_LOW, &CoalesceSettings::pkt_rate_low},
    {ETHTOOL_A_COALESCE_RX_USECS_LOW, &CoalesceSettings::rx_usecs_low},
    {ETHTOOL_A_COALESCE_RX_MAX_FRAMES_LOW, &CoalesceSettings::rx_max_frames_low},
    {ETHTOOL_A_COALESCE_TX_USECS_LOW, &CoalesceSettings::tx_usecs_low},
    {ETHTOOL_A_COALESCE_TX_MAX_FRAMES_LOW, &CoalesceSettings::tx_max_frames_low},
    {ETHTOOL_A_COALESCE_PKT_RATE_HIGH, &CoalesceSettings::pkt_rate_high},
    {ETHTOOL_A_COALESCE_RX_USECS_HIGH, &CoalesceSettings::rx_usecs_high},
    {ETHTOOL_A_COALESCE_RX_MAX_FRAMES_HIGH, &CoalesceSettings::rx_max_frames_high},
    {ETHTOOL_A_COALESCE_TX_USECS_HIGH, &CoalesceSettings::tx_usecs_high},
    {ETHTOOL_A_COALESCE_TX_MAX_FRAMES_HIGH, &CoalesceSettings::tx_max_frames_high},
    {ETHTOOL_A_COALESCE_RATE_SAMPLE_INTERVAL, &CoalesceSettings::rate_sample_interval},
    {kCoalesceTxAggrMaxBytes, &CoalesceSettings::tx_aggr_max_bytes},
    {kCoalesceTxAggrMaxFrames, &CoalesceSettings::tx_aggr_max_frames},
    {kCoalesceTxAggrTimeUsecs, &CoalesceSettings::tx_aggr_time_usecs},
};
constexpr CoalesceBoolField kCoalesceBoolFields[] = {
    {ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, &CoalesceSettings::use_adaptive_rx},
    {ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX, &CoalesceSettings::use_adaptive_tx},
    {ETHTOOL_A_COALESCE_USE_CQE_MODE_TX, &CoalesceSettings::use_cqe_mode_tx},
    {ETHTOOL_A_COALESCE_USE_CQE_MODE_RX, &CoalesceSettings::use_cqe_mode_rx},
};

// The ring sizes RINGS_SET takes here; the other RingSettings fields are maxima (read-only) or
// layout settings this project does not manage.
struct RingField {
  uint16_t attribute;
  std::optional<uint32_t> RingSettings::*field;
};
constexpr RingField kRingSizeFields[] = {
    {ETHTOOL_A_RINGS_RX, &RingSettings::rx},
    {ETHTOOL_A_RINGS_RX_MINI, &RingSettings::rx_mini},
    {ETHTOOL_A_RINGS_RX_JUMBO, &RingSettings::rx_jumbo},
    {ETHTOOL_A_RINGS_TX, &RingSettings::tx},
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
        nlattr* header = mnl_attr_nest_start(&message, header_attribute);
        mnl_attr_put_strz(&message, ETHTOOL_A_HEADER_DEV_NAME, device.c_str());
        mnl_attr_nest_end(&message, header);
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
                device, [&](nlmsghdr& message) {
                  // Checked above: cannot fail.
                  PutCoalesceChange(message, change, device).IgnoreError();
                });
}

absl::Status EthtoolNetlink::SetRings(const std::string& device, const RingSettings& change) {
  const RequestContext context{"ethtool", "RINGS_SET", device};
  if (absl::Status status = CheckRingsChange(change, device); !status.ok()) return status;
  return SetOne(socket_, family_, ETHTOOL_MSG_RINGS_SET, ETHTOOL_A_RINGS_HEADER, context, device,
                [&](nlmsghdr& message) {
                  // Checked above: cannot fail.
                  PutRingsChange(message, change, device).IgnoreError();
                });
}

absl::Status PutCoalesceChange(nlmsghdr& message, const CoalesceSettings& change,
                               const std::string& device) {
  if (absl::Status status = CheckCoalesceChange(change, device); !status.ok()) return status;
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
  return absl::OkStatus();
}

absl::Status PutRingsChange(nlmsghdr& message, const RingSettings& change,
                            const std::string& device) {
  if (absl::Status status = CheckRingsChange(change, device); !status.ok()) return status;
  for (const RingField& f : kRingSizeFields) {
    if (const std::optional<uint32_t>& value = change.*f.field) {
      mnl_attr_put_u32(&message, f.attribute, *value);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<CoalesceSettings> ParseCoalesceReply(const nlmsghdr& message,
                                                    const std::string& device) {
  AttributeReader a = AttributeReader::FromMessage(
      message, sizeof(genlmsghdr), absl::StrCat("ethtool netlink COALESCE_GET ", device));
  CoalesceSettings s;
  s.device = device;
  s.source = kEthtoolNetlinkSource;
  s.rx_usecs = a.U32(ETHTOOL_A_COALESCE_RX_USECS, "rx-usecs");
  s.rx_max_frames = a.U32(ETHTOOL_A_COALESCE_RX_MAX_FRAMES, "rx-frames");
  s.rx_usecs_irq = a.U32(ETHTOOL_A_COALESCE_RX_USECS_IRQ, "rx-usecs-irq");
  s.rx_max_frames_irq = a.U32(ETHTOOL_A_COALESCE_RX_MAX_FRAMES_IRQ, "rx-frames-irq");
  s.tx_usecs = a.U32(ETHTOOL_A_COALESCE_TX_USECS, "tx-usecs");
  s.tx_max_frames = a.U32(ETHTOOL_A_COALESCE_TX_MAX_FRAMES, "tx-frames");
  s.tx_usecs_irq = a.U32(ETHTOOL_A_COALESCE_TX_USECS_IRQ, "tx-usecs-irq");
  s.tx_max_frames_irq = a.U32(ETHTOOL_A_COALESCE_TX_MAX_FRAMES_IRQ, "tx-frames-irq");
  s.stats_block_usecs = a.U32(ETHTOOL_A_COALESCE_STATS_BLOCK_USECS, "stats-block-usecs");
  s.use_adaptive_rx = a.Bool(ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX, "adaptive-rx");
  s.use_adaptive_tx = a.Bool(ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX, "adaptive-tx");
  s.pkt_rate_low = a.U32(ETHTOOL_A_COALESCE_PKT_RATE_LOW, "pkt-rate-low");
  s.rx_usecs_low = a.U32(ETHTOOL_A_COALESCE_RX_USECS_LOW, "rx-usecs-low");
  s.rx_max_frames_low = a.U32(ETHTOOL_A_COALESCE_RX_MAX_FRAMES_LOW, "rx-frames-low");
  s.tx_usecs_low = a.U32(ETHTOOL_A_COALESCE_TX_USECS_LOW, "tx-usecs-low");
  s.tx_max_frames_low = a.U32(ETHTOOL_A_COALESCE_TX_MAX_FRAMES_LOW, "tx-frames-low");
  s.pkt_rate_high = a.U32(ETHTOOL_A_COALESCE_PKT_RATE_HIGH, "pkt-rate-high");
  s.rx_usecs_high = a.U32(ETHTOOL_A_COALESCE_RX_USECS_HIGH, "rx-usecs-high");
  s.rx_max_frames_high = a.U32(ETHTOOL_A_COALESCE_RX_MAX_FRAMES_HIGH, "rx-frames-high");
  s.tx_usecs_high = a.U32(ETHTOOL_A_COALESCE_TX_USECS_HIGH, "tx-usecs-high");
  s.tx_max_frames_high = a.U32(ETHTOOL_A_COALESCE_TX_MAX_FRAMES_HIGH, "tx-frames-high");
  s.rate_sample_interval = a.U32(ETHTOOL_A_COALESCE_RATE_SAMPLE_INTERVAL, "sample-interval");
  s.use_cqe_mode_tx = a.Bool(ETHTOOL_A_COALESCE_USE_CQE_MODE_TX, "cqe-mode-tx");
  s.use_cqe_mode_rx = a.Bool(ETHTOOL_A_COALESCE_USE_CQE_MODE_RX, "cqe-mode-rx");
  s.tx_aggr_max_bytes = a.U32(kCoalesceTxAggrMaxBytes, "tx-aggr-max-bytes");
  s.tx_aggr_max_frames = a.U32(kCoalesceTxAggrMaxFrames, "tx-aggr-max-frames");
  s.tx_aggr_time_usecs = a.U32(kCoalesceTxAggrTimeUsecs, "tx-aggr-time-usecs");
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
