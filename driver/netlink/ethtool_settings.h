// SPDX-License-Identifier: Apache-2.0
// Interrupt coalescing and ring sizes of a network device, as the kernel reports them.
// Every field is optional: absent when the driver (or kernel) did not report it, which over
// ethtool netlink means "this driver does not support the parameter".
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace nictune::driver::netlink {

// Where a reading came from.
inline constexpr char kEthtoolNetlinkSource[] = "ethtool-netlink";
// The legacy ioctl cannot say which fields a driver supports: all of them are filled.
inline constexpr char kEthtoolIoctlSource[] = "ethtool-ioctl";

struct CoalesceSettings {
  std::string device;
  std::string source;  // kEthtoolNetlinkSource or kEthtoolIoctlSource
  std::optional<uint32_t> rx_usecs;
  std::optional<uint32_t> rx_max_frames;
  std::optional<uint32_t> rx_usecs_irq;
  std::optional<uint32_t> rx_max_frames_irq;
  std::optional<uint32_t> tx_usecs;
  std::optional<uint32_t> tx_max_frames;
  std::optional<uint32_t> tx_usecs_irq;
  std::optional<uint32_t> tx_max_frames_irq;
  std::optional<uint32_t> stats_block_usecs;
  std::optional<bool> use_adaptive_rx;
  std::optional<bool> use_adaptive_tx;
  std::optional<uint32_t> pkt_rate_low;
  std::optional<uint32_t> rx_usecs_low;
  std::optional<uint32_t> rx_max_frames_low;
  std::optional<uint32_t> tx_usecs_low;
  std::optional<uint32_t> tx_max_frames_low;
  std::optional<uint32_t> pkt_rate_high;
  std::optional<uint32_t> rx_usecs_high;
  std::optional<uint32_t> rx_max_frames_high;
  std::optional<uint32_t> tx_usecs_high;
  std::optional<uint32_t> tx_max_frames_high;
  std::optional<uint32_t> rate_sample_interval;
  std::optional<bool> use_cqe_mode_tx;
  std::optional<bool> use_cqe_mode_rx;
  std::optional<uint32_t> tx_aggr_max_bytes;
  std::optional<uint32_t> tx_aggr_max_frames;
  std::optional<uint32_t> tx_aggr_time_usecs;
};

struct RingSettings {
  std::string device;
  std::string source;  // kEthtoolNetlinkSource or kEthtoolIoctlSource
  std::optional<uint32_t> rx;
  std::optional<uint32_t> rx_max;
  std::optional<uint32_t> rx_mini;
  std::optional<uint32_t> rx_mini_max;
  std::optional<uint32_t> rx_jumbo;
  std::optional<uint32_t> rx_jumbo_max;
  std::optional<uint32_t> tx;
  std::optional<uint32_t> tx_max;
  std::optional<uint32_t> rx_buf_len;
  std::optional<uint8_t> tcp_data_split;  // ETHTOOL_TCP_DATA_SPLIT_{UNKNOWN,DISABLED,ENABLED}
  std::optional<uint32_t> cqe_size;
  std::optional<bool> tx_push;
  std::optional<bool> rx_push;
  std::optional<uint32_t> tx_push_buf_len;
  std::optional<uint32_t> tx_push_buf_len_max;
  std::optional<uint32_t> hds_thresh;
  std::optional<uint32_t> hds_thresh_max;
};

}  // namespace nictune::driver::netlink
