// SPDX-License-Identifier: Apache-2.0
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
#include "driver/kernel_name.h"
#include "driver/netlink/netlink_error.h"

namespace nictune::driver::netlink {
namespace {

// One SIOCETHTOOL call with `command` already set in *data.
absl::Status EthtoolIoctl(const std::string& device, const char* command_name, void* data) {
  const std::string what = absl::StrCat("ethtool ioctl ", command_name, " ", device);
  const std::string bytes = KernelNameBytes(device);
  if (bytes.empty() || bytes.size() >= IFNAMSIZ) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": device name is empty or longer than ", IFNAMSIZ - 1, " characters"));
  }
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoStatus(absl::StrCat(what, ": socket"), errno);
  ifreq request{};
  std::memcpy(request.ifr_name, bytes.c_str(), bytes.size() + 1);
  request.ifr_data = static_cast<char*>(data);
  const int rc = ::ioctl(fd, SIOCETHTOOL, &request);
  const int err = errno;
  ::close(fd);
  if (rc < 0) return ErrnoStatus(what, err);
  return absl::OkStatus();
}

// Where a settings field sits in the ioctl's structure: the G* command reads through these
// tables and the S* command writes the present fields back through the same ones.
template <typename Settings, typename Raw, typename Value>
struct IoctlField {
  std::optional<Value> Settings::*setting;
  __u32 Raw::*raw;
};
using CoalesceU32 = IoctlField<CoalesceSettings, ethtool_coalesce, uint32_t>;
using CoalesceFlag = IoctlField<CoalesceSettings, ethtool_coalesce, bool>;
using RingSize = IoctlField<RingSettings, ethtool_ringparam, uint32_t>;

// Every CoalesceSettings field but the cqe modes and tx aggregation, which have no place in
// struct ethtool_coalesce.
constexpr CoalesceU32 kCoalesceU32[] = {
    {&CoalesceSettings::rx_usecs, &ethtool_coalesce::rx_coalesce_usecs},
    {&CoalesceSettings::rx_max_frames, &ethtool_coalesce::rx_max_coalesced_frames},
    {&CoalesceSettings::rx_usecs_irq, &ethtool_coalesce::rx_coalesce_usecs_irq},
    {&CoalesceSettings::rx_max_frames_irq, &ethtool_coalesce::rx_max_coalesced_frames_irq},
    {&CoalesceSettings::tx_usecs, &ethtool_coalesce::tx_coalesce_usecs},
    {&CoalesceSettings::tx_max_frames, &ethtool_coalesce::tx_max_coalesced_frames},
    {&CoalesceSettings::tx_usecs_irq, &ethtool_coalesce::tx_coalesce_usecs_irq},
    {&CoalesceSettings::tx_max_frames_irq, &ethtool_coalesce::tx_max_coalesced_frames_irq},
    {&CoalesceSettings::stats_block_usecs, &ethtool_coalesce::stats_block_coalesce_usecs},
    {&CoalesceSettings::pkt_rate_low, &ethtool_coalesce::pkt_rate_low},
    {&CoalesceSettings::rx_usecs_low, &ethtool_coalesce::rx_coalesce_usecs_low},
    {&CoalesceSettings::rx_max_frames_low, &ethtool_coalesce::rx_max_coalesced_frames_low},
    {&CoalesceSettings::tx_usecs_low, &ethtool_coalesce::tx_coalesce_usecs_low},
    {&CoalesceSettings::tx_max_frames_low, &ethtool_coalesce::tx_max_coalesced_frames_low},
    {&CoalesceSettings::pkt_rate_high, &ethtool_coalesce::pkt_rate_high},
    {&CoalesceSettings::rx_usecs_high, &ethtool_coalesce::rx_coalesce_usecs_high},
    {&CoalesceSettings::rx_max_frames_high, &ethtool_coalesce::rx_max_coalesced_frames_high},
    {&CoalesceSettings::tx_usecs_high, &ethtool_coalesce::tx_coalesce_usecs_high},
    {&CoalesceSettings::tx_max_frames_high, &ethtool_coalesce::tx_max_coalesced_frames_high},
    {&CoalesceSettings::rate_sample_interval, &ethtool_coalesce::rate_sample_interval},
};
constexpr CoalesceFlag kCoalesceFlags[] = {
    {&CoalesceSettings::use_adaptive_rx, &ethtool_coalesce::use_adaptive_rx_coalesce},
    {&CoalesceSettings::use_adaptive_tx, &ethtool_coalesce::use_adaptive_tx_coalesce},
};

// The ring sizes SRINGPARAM can set; their maxima are read-only.
constexpr RingSize kRingSizes[] = {
    {&RingSettings::rx, &ethtool_ringparam::rx_pending},
    {&RingSettings::rx_mini, &ethtool_ringparam::rx_mini_pending},
    {&RingSettings::rx_jumbo, &ethtool_ringparam::rx_jumbo_pending},
    {&RingSettings::tx, &ethtool_ringparam::tx_pending},
};
constexpr RingSize kRingMaxima[] = {
    {&RingSettings::rx_max, &ethtool_ringparam::rx_max_pending},
    {&RingSettings::rx_mini_max, &ethtool_ringparam::rx_mini_max_pending},
    {&RingSettings::rx_jumbo_max, &ethtool_ringparam::rx_jumbo_max_pending},
    {&RingSettings::tx_max, &ethtool_ringparam::tx_max_pending},
};

template <typename Settings, typename Raw, typename Value, size_t N>
void ReadFields(const Raw& raw, const IoctlField<Settings, Raw, Value> (&fields)[N],
                Settings& settings) {
  for (const auto& f : fields) settings.*f.setting = static_cast<Value>(raw.*f.raw);
}

template <typename Settings, typename Raw, typename Value, size_t N>
void WritePresentFields(const Settings& change, const IoctlField<Settings, Raw, Value> (&fields)[N],
                        Raw& raw) {
  for (const auto& f : fields) {
    if (const std::optional<Value>& value = change.*f.setting)
      raw.*f.raw = static_cast<__u32>(*value);
  }
}

}  // namespace

absl::StatusOr<CoalesceSettings> GetCoalesceByIoctl(const std::string& device) {
  ethtool_coalesce c{};
  c.cmd = ETHTOOL_GCOALESCE;
  if (absl::Status status = EthtoolIoctl(device, "GCOALESCE", &c); !status.ok()) return status;
  CoalesceSettings s;
  s.device = device;
  s.source = kEthtoolIoctlSource;
  ReadFields(c, kCoalesceU32, s);
  ReadFields(c, kCoalesceFlags, s);
  return s;
}

absl::StatusOr<RingSettings> GetRingsByIoctl(const std::string& device) {
  ethtool_ringparam r{};
  r.cmd = ETHTOOL_GRINGPARAM;
  if (absl::Status status = EthtoolIoctl(device, "GRINGPARAM", &r); !status.ok()) return status;
  RingSettings s;
  s.device = device;
  s.source = kEthtoolIoctlSource;
  ReadFields(r, kRingSizes, s);
  ReadFields(r, kRingMaxima, s);
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
  WritePresentFields(change, kCoalesceU32, c);
  WritePresentFields(change, kCoalesceFlags, c);
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
  WritePresentFields(change, kRingSizes, r);
  r.cmd = ETHTOOL_SRINGPARAM;
  return EthtoolIoctl(device, "SRINGPARAM", &r);
}

absl::StatusOr<std::string> GetDriverName(const std::string& device) {
  ethtool_drvinfo info{};
  info.cmd = ETHTOOL_GDRVINFO;
  if (absl::Status status = EthtoolIoctl(device, "GDRVINFO", &info); !status.ok()) return status;
  return std::string(info.driver, strnlen(info.driver, sizeof info.driver));
}

absl::Status NameTheDriver(const absl::Status& status, const std::string& device) {
  if (status.code() != absl::StatusCode::kUnimplemented) return status;
  absl::StatusOr<std::string> driver = GetDriverName(device);
  const std::string who = driver.ok() && !driver->empty()
                              ? *driver
                              : absl::StrCat("the driver of ", device, " (no driver info)");
  return absl::UnimplementedError(absl::StrCat("not supported by ", who, ": ", status.message()));
}

}  // namespace nictune::driver::netlink
