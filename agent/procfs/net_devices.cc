// SPDX-License-Identifier: Apache-2.0
#include "agent/procfs/net_devices.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "agent/procfs/read_file.h"
#include "agent/procfs/text_scan.h"
#include "driver/kernel_name.h"

namespace nictune::procfs {
namespace {

namespace fs = std::filesystem;

absl::Status FilesystemError(std::string_view operation, const fs::path& path,
                             const std::error_code& error) {
  const std::string message = absl::StrCat(ToAbsl(operation), " ", path.native(), ": ",
                                           error.message(), " (errno ", error.value(), ")");
  if (error == std::errc::no_such_file_or_directory) return absl::NotFoundError(message);
  if (error == std::errc::permission_denied) return absl::PermissionDeniedError(message);
  return absl::InternalError(message);
}

// The names in a directory, sorted. A directory that does not exist yields NotFound.
absl::StatusOr<std::vector<std::string>> ListDirectory(const fs::path& directory) {
  std::error_code error;
  fs::directory_iterator it(directory, error);
  if (error) return FilesystemError("list", directory, error);
  std::vector<std::string> names;
  for (const fs::directory_iterator end; it != end; it.increment(error)) {
    names.push_back(it->path().filename().native());
  }
  if (error) return FilesystemError("list", directory, error);
  std::sort(names.begin(), names.end());
  return names;
}

// sysfs attributes are one value and a newline.
absl::StatusOr<std::string> ReadAttribute(const fs::path& path) {
  absl::StatusOr<std::string> content = ReadFile(path.native());
  if (!content.ok()) return content.status();
  const std::string_view value =
      TrimBlanks(std::string_view(*content).substr(0, std::string_view(*content).find('\n')));
  return std::string(value);
}

absl::Status ReadStatistics(const fs::path& device, NetDevice& out) {
  const fs::path directory = device / "statistics";
  absl::StatusOr<std::vector<std::string>> names = ListDirectory(directory);
  if (!names.ok()) return names.status();
  for (const std::string& name : *names) {
    const fs::path file = directory / name;
    absl::StatusOr<std::string> text = ReadAttribute(file);
    if (!text.ok()) return text.status();
    const std::optional<uint64_t> value = ParseUint64(*text);
    if (!value.has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat(file.native(), ": expected an unsigned counter, got \"", *text, "\""));
    }
    out.statistics.emplace(name, *value);
  }
  return absl::OkStatus();
}

absl::Status CountQueues(const fs::path& device, NetDevice& out) {
  absl::StatusOr<std::vector<std::string>> names = ListDirectory(device / "queues");
  if (!names.ok()) return names.status();
  for (const std::string& name : *names) {
    if (name.rfind("rx-", 0) == 0) ++out.rx_queues;
    if (name.rfind("tx-", 0) == 0) ++out.tx_queues;
  }
  return absl::OkStatus();
}

// Virtual devices have no device/driver link and most have no device/msi_irqs: both are
// optional, so NotFound there is an answer, not an error.
absl::Status ReadDriverAndMsiIrqs(const fs::path& device, NetDevice& out) {
  const fs::path driver_link = device / "device" / "driver";
  std::error_code error;
  const fs::path driver = fs::read_symlink(driver_link, error);
  if (!error) {
    out.driver = nictune::driver::KernelNameText(driver.filename().native());
  } else if (error != std::errc::no_such_file_or_directory) {
    return FilesystemError("readlink", driver_link, error);
  }

  const fs::path msi_directory = device / "device" / "msi_irqs";
  absl::StatusOr<std::vector<std::string>> names = ListDirectory(msi_directory);
  if (absl::IsNotFound(names.status())) return absl::OkStatus();
  if (!names.ok()) return names.status();
  for (const std::string& name : *names) {
    const std::optional<uint32_t> irq = ParseUint32(name);
    if (!irq.has_value() || *irq > static_cast<uint32_t>(std::numeric_limits<int32_t>::max())) {
      return absl::InvalidArgumentError(
          absl::StrCat(msi_directory.native(), ": entry \"", name, "\" is not an irq number"));
    }
    out.msi_irqs.push_back(static_cast<int>(*irq));
  }
  std::sort(out.msi_irqs.begin(), out.msi_irqs.end());
  return absl::OkStatus();
}

absl::StatusOr<NetDevice> ReadDevice(const fs::path& device, NetDeviceParts parts) {
  NetDevice out;
  out.name = nictune::driver::KernelNameText(device.filename().native());
  const fs::path ifindex_file = device / "ifindex";
  absl::StatusOr<std::string> ifindex = ReadAttribute(ifindex_file);
  if (!ifindex.ok()) return ifindex.status();
  const std::optional<int64_t> value = ParseInt64(*ifindex);
  if (!value.has_value() || *value <= 0 || *value > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(absl::StrCat(
        ifindex_file.native(), ": expected a positive ifindex, got \"", *ifindex, "\""));
  }
  out.ifindex = static_cast<int32_t>(*value);
  if (parts.statistics) {
    if (absl::Status status = ReadStatistics(device, out); !status.ok()) return status;
  }
  if (absl::Status status = CountQueues(device, out); !status.ok()) return status;
  if (absl::Status status = ReadDriverAndMsiIrqs(device, out); !status.ok()) return status;
  return out;
}

}  // namespace

absl::StatusOr<std::vector<NetDevice>> ReadNetDevices(const std::string& sys_class_net,
                                                      NetDeviceParts parts) {
  absl::StatusOr<std::vector<std::string>> names = ListDirectory(sys_class_net);
  if (!names.ok()) return names.status();
  std::vector<NetDevice> devices;
  for (const std::string& name : *names) {
    const fs::path device = fs::path(sys_class_net) / name;
    std::error_code error;
    // Not every entry is a device: the bonding driver adds a file "bonding_masters". A link
    // whose device is already gone (is_directory follows it) is skipped the same way.
    if (!fs::is_directory(device, error)) continue;
    absl::StatusOr<NetDevice> read = ReadDevice(device, parts);
    // NotFound mid-read means the device was unregistered meanwhile (veth pairs of short-lived
    // containers) when its directory is gone too: skip it rather than fail the whole sample.
    if (absl::IsNotFound(read.status()) && !fs::exists(device, error)) continue;
    if (!read.ok()) return read.status();
    devices.push_back(*std::move(read));
  }
  return devices;
}

}  // namespace nictune::procfs
