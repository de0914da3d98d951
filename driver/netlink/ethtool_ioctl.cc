#include "driver/netlink/ethtool_ioctl.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "driver/netlink/netlink_error.h"

namespace nictune::driver::netlink {
namespace {

// One SIOCETHTOOL call with `command` already set in *data.
absl::Status EthtoolIoctl(const std::string& device, const char* command_name, void* data) {
  const std::string what = absl::StrCat("ethtool ioctl ", command_name, " ", device);
  if (device.empty() || device.size() >= IFNAMSIZ) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": device name is empty or longer than ", IFNAMSIZ - 1, " characters"));
  }
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoStatus(absl::StrCat(what, ": socket"), errno);
  ifreq request{};
  std::memcpy(request.ifr_name, device.c_str(), device.size() + 1);
  request.ifr_data = static_cast<char*>(data);
  const int rc = ::ioctl(fd, SIOCETHTOOL, &request);
  const int err = errno;
  ::close(fd);
  if (rc < 0) return ErrnoStatus(what, err);
  return absl::OkStatus();
}

template <typename T, typename U>
void ApplyIfPresent(const std::optional<U>& change, T& field) {
  if (change) field = static_cast<T>(*change);
}

}  // namespace

absl::StatusOr<CoalesceSettings> GetCoalesceByIoctl(const std::string& device) {
  ethtool_coalesce c{};
  c.cmd = ETHTOOL_GCOALESCE;
  if (absl::Status status = EthtoolIoctl(device, "GCOALESCE", &c); !status.ok()) return status;
  CoalesceSettings s;
  s.device = device;
  s.source = kEthtoolIoctlSource;
  s.rx_usecs = c.rx_coalesce_usecs;
  s.rx_max_frames = c.rx_max_coalesced_frames;
  s.rx_usecs_irq = c.rx_coalesce_usecs_irq;
  s.rx_max_frames_irq = c.rx_max_coalesced_frames_irq;
  s.tx_usecs = c.tx_coalesce_usecs;
  s.tx_max_frames = c.tx_max_coalesced_frames;
  s.tx_usecs_irq = c.tx_coalesce_usecs_irq;
  s.tx_max_frames_irq = c.tx_max_coalesced_frames_irq;
  s.stats_block_usecs = c.stats_block_coalesce_usecs;
  s.use_adaptive_rx = c.use_adaptive_rx_coalesce != 0;
  s.use_adaptive_tx = c.use_adaptive_tx_coalesce != 0;
  s.pkt_rate_low = c.pkt_rate_low;
  s.rx_usecs_low = c.rx_coalesce_usecs_low;
  s.rx_max_frames_low = c.rx_max_coalesced_frames_low;
  s.tx_usecs_low = c.tx_coalesce_usecs_low;
  s.tx_max_frames_low = c.tx_max_coalesced_frames_low;
  s.pkt_rate_high = c.pkt_rate_high;
  s.rx_usecs_high = c.rx_coalesce_usecs_high;
  s.rx_max_frames_high = c.rx_max_coalesced_frames_high;
  s.tx_usecs_high = c.tx_coalesce_usecs_high;
  s.tx_max_frames_high = c.tx_max_coalesced_frames_high;
  s.rate_sample_interval = c.rate_sample_interval;
  return s;
}

absl::StatusOr<RingSettings> GetRingsByIoctl(const std::string& device) {
  ethtool_ringparam r{};
  r.cmd = ETHTOOL_GRINGPARAM;
  if (absl::Status status = EthtoolIoctl(device, "GRINGPARAM", &r); !status.ok()) return status;
  RingSettings s;
  s.device = device;
  s.source = kEthtoolIoctlSource;
  s.rx = r.rx_pending;
  s.rx_max = r.rx_max_pending;
  s.rx_mini = r.rx_mini_pending;
  s.rx_mini_max = r.rx_mini_max_pending;
  s.rx_jumbo = r.rx_jumbo_pending;
  s.rx_jumbo_max = r.rx_jumbo_max_pending;
  s.tx = r.tx_pending;
  s.tx_max = r.tx_max_pending;
  return s;
}

absl::Status SetCoalesceByIoctl(const std::string& device, const CoalesceSettings& change) {
  if (change.use_cqe_mode_tx || change.use_cqe_mode_rx || change.tx_aggr_max_bytes ||
      change.tx_aggr_max_frames || change.tx_aggr_time_usecs) {
    return absl::InvalidArgumentError(
        absl::StrCat("ethtool ioctl SCOALESCE ", device,
                     ": cqe modes and tx aggregation can only be set over ethtool netlink"));
  }
  ethtool_coalesce c{};
  c.cmd = ETHTOOL_GCOALESCE;
  if (absl::Status status = EthtoolIoctl(device, "GCOALESCE", &c); !status.ok()) return status;
  ApplyIfPresent(change.rx_usecs, c.rx_coalesce_usecs);
  ApplyIfPresent(change.rx_max_frames, c.rx_max_coalesced_frames);
  ApplyIfPresent(change.rx_usecs_irq, c.rx_coalesce_usecs_irq);
  ApplyIfPresent(change.rx_max_frames_irq, c.rx_max_coalesced_frames_irq);
  ApplyIfPresent(change.tx_usecs, c.tx_coalesce_usecs);
  ApplyIfPresent(change.tx_max_frames, c.tx_max_coalesced_frames);
  ApplyIfPresent(change.tx_usecs_irq, c.tx_coalesce_usecs_irq);
  ApplyIfPresent(change.tx_max_frames_irq, c.tx_max_coalesced_frames_irq);
  ApplyIfPresent(change.stats_block_usecs, c.stats_block_coalesce_usecs);
  ApplyIfPresent(change.use_adaptive_rx, c.use_adaptive_rx_coalesce);
  ApplyIfPresent(change.use_adaptive_tx, c.use_adaptive_tx_coalesce);
  ApplyIfPresent(change.pkt_rate_low, c.pkt_rate_low);
  ApplyIfPresent(change.rx_usecs_low, c.rx_coalesce_usecs_low);
  ApplyIfPresent(change.rx_max_frames_low, c.rx_max_coalesced_frames_low);
  ApplyIfPresent(change.tx_usecs_low, c.tx_coalesce_usecs_low);
  ApplyIfPresent(change.tx_max_frames_low, c.tx_max_coalesced_frames_low);
  ApplyIfPresent(change.pkt_rate_high, c.pkt_rate_high);
  ApplyIfPresent(change.rx_usecs_high, c.rx_coalesce_usecs_high);
  ApplyIfPresent(change.rx_max_frames_high, c.rx_max_coalesced_frames_high);
  ApplyIfPresent(change.tx_usecs_high, c.tx_coalesce_usecs_high);
  ApplyIfPresent(change.tx_max_frames_high, c.tx_max_coalesced_frames_high);
  ApplyIfPresent(change.rate_sample_interval, c.rate_sample_interval);
  c.cmd = ETHTOOL_SCOALESCE;
  return EthtoolIoctl(device, "SCOALESCE", &c);
}

absl::Status SetRingsByIoctl(const std::string& device, const RingSettings& change) {
  if (change.rx_max || change.rx_mini_max || change.rx_jumbo_max || change.tx_max ||
      change.rx_buf_len || change.tcp_data_split || change.cqe_size || change.tx_push ||
      change.rx_push || change.tx_push_buf_len || change.tx_push_buf_len_max || change.hds_thresh ||
      change.hds_thresh_max) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ethtool ioctl SRINGPARAM ", device, ": only rx, rx-mini, rx-jumbo and tx can be set"));
  }
  ethtool_ringparam r{};
  r.cmd = ETHTOOL_GRINGPARAM;
  if (absl::Status status = EthtoolIoctl(device, "GRINGPARAM", &r); !status.ok()) return status;
  ApplyIfPresent(change.rx, r.rx_pending);
  ApplyIfPresent(change.rx_mini, r.rx_mini_pending);
  ApplyIfPresent(change.rx_jumbo, r.rx_jumbo_pending);
  ApplyIfPresent(change.tx, r.tx_pending);
  r.cmd = ETHTOOL_SRINGPARAM;
  return EthtoolIoctl(device, "SRINGPARAM", &r);
}

absl::StatusOr<std::string> GetDriverName(const std::string& device) {
  ethtool_drvinfo info{};
  info.cmd = ETHTOOL_GDRVINFO;
  if (absl::Status status = EthtoolIoctl(device, "GDRVINFO", &info); !status.ok()) return status;
  return std::string(info.driver, strnlen(info.driver, sizeof info.driver));
}

}  // namespace nictune::driver::netlink
