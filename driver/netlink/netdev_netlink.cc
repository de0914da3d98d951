// SPDX-License-Identifier: Apache-2.0
#include "driver/netlink/netdev_netlink.h"

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "driver/netlink/attributes.h"
#include "driver/netlink/genl_socket.h"

namespace nictune::driver::netlink {
namespace {

// The installed uapi headers (6.1) predate <linux/netdev.h>'s napi and queue commands; values
// from the kernel's include/uapi/linux/netdev.h (generated from Documentation/netlink/specs/
// netdev.yaml), which only ever appends.
constexpr char kFamilyName[] = "netdev";
constexpr uint8_t kFamilyVersion = 1;
constexpr uint8_t kCmdQueueGet = 10;  // 6.8
constexpr uint8_t kCmdNapiGet = 11;   // 6.8
constexpr uint8_t kCmdNapiSet = 14;   // 6.13

constexpr uint16_t kNapiIfindex = 1;
constexpr uint16_t kNapiId = 2;
constexpr uint16_t kNapiIrq = 3;
constexpr uint16_t kNapiPid = 4;
constexpr uint16_t kNapiDeferHardIrqs = 5;      // 6.13
constexpr uint16_t kNapiGroFlushTimeout = 6;    // 6.13
constexpr uint16_t kNapiIrqSuspendTimeout = 7;  // 6.13
constexpr uint16_t kNapiThreaded = 8;           // 6.17

constexpr uint16_t kQueueId = 1;
constexpr uint16_t kQueueIfindex = 2;
constexpr uint16_t kQueueType = 3;
constexpr uint16_t kQueueNapiId = 4;

// napi-set's policy: defer-hard-irqs is a u32 capped at S32_MAX (netdev.yaml "max: s32-max").
constexpr uint32_t kDeferHardIrqsMax = 2147483647u;

constexpr uint32_t kQueueTypeRx = 0;
constexpr uint32_t kQueueTypeTx = 1;

absl::Status NotSupported(std::string_view command, std::string_view why) {
  return absl::UnimplementedError(absl::StrCat(
      "netdev netlink: ", absl::string_view(command.data(), command.size()),
      " not supported by this kernel (", absl::string_view(why.data(), why.size()), ")"));
}

// Unimplemented "... not supported by this kernel (...)" unless the running kernel's netdev family
// (nullopt when it has none, for missing_reason) has `command`.
absl::Status CheckCommand(const std::optional<GenlFamily>& family, std::string_view missing_reason,
                          std::string_view name, uint8_t command) {
  if (!family) return NotSupported(name, missing_reason);
  if (!FamilyHasCommand(*family, command)) {
    return NotSupported(name, absl::StrCat("the \"netdev\" family has no command ", command));
  }
  return absl::OkStatus();
}

// The netdev family on `socket`'s kernel; a kernel without it is not an error here (each command
// then answers unsupported, with this reason).
struct NetdevFamily {
  std::optional<GenlFamily> family;
  std::string missing_reason;
};
absl::StatusOr<NetdevFamily> ResolveNetdevFamily(GenlSocket& socket) {
  absl::StatusOr<GenlFamily> family = socket.ResolveFamily(kFamilyName);
  if (family.status().code() == absl::StatusCode::kNotFound) {
    return NetdevFamily{std::nullopt, std::string(family.status().message())};
  }
  if (!family.ok()) return family.status();
  return NetdevFamily{*std::move(family), ""};
}

class NetdevNetlink final : public NetdevTopology {
 public:
  NetdevNetlink(GenlSocket socket, std::optional<GenlFamily> family, std::string missing_reason)
      : socket_(std::move(socket)),
        family_(std::move(family)),
        missing_reason_(std::move(missing_reason)) {}

  absl::StatusOr<std::vector<NapiInfo>> ListNapis(std::optional<int32_t> ifindex) override {
    return Dump<NapiInfo>("napi-get", kCmdNapiGet, kNapiIfindex, ifindex, ParseNapiMessage);
  }

  absl::StatusOr<std::vector<NetdevQueue>> ListQueues(std::optional<int32_t> ifindex) override {
    return Dump<NetdevQueue>("queue-get", kCmdQueueGet, kQueueIfindex, ifindex, ParseQueueMessage);
  }

 private:
  template <typename Item, typename Parse>
  absl::StatusOr<std::vector<Item>> Dump(std::string_view command_name, uint8_t command,
                                         uint16_t ifindex_attribute, std::optional<int32_t> ifindex,
                                         Parse parse) {
    if (absl::Status status = CheckCommand(family_, missing_reason_, command_name, command);
        !status.ok()) {
      return status;
    }
    const std::string target = ifindex ? absl::StrCat("ifindex ", *ifindex) : "";
    const RequestContext context{kFamilyName, command_name, target};
    std::vector<Item> items;
    absl::Status status = socket_.Request(
        context, family_->id, command, kFamilyVersion, /*dump=*/true,
        [&](nlmsghdr& message) {
          if (ifindex)
            mnl_attr_put_u32(&message, ifindex_attribute, static_cast<uint32_t>(*ifindex));
        },
        [&](const nlmsghdr& message) -> absl::Status {
          absl::StatusOr<Item> item = parse(message);
          if (!item.ok()) return item.status();
          items.push_back(*std::move(item));
          return absl::OkStatus();
        });
    if (status.code() == absl::StatusCode::kUnimplemented) {
      return NotSupported(command_name, std::string(status.message()));
    }
    if (!status.ok()) return status;
    return items;
  }

  GenlSocket socket_;
  std::optional<GenlFamily> family_;
  std::string missing_reason_;
};

// A netlink "uint": 4 bytes when the value fits, 8 otherwise, as the kernel's nla_put_uint.
void PutUint(nlmsghdr& message, uint16_t type, uint64_t value) {
  if (value <= UINT32_MAX) {
    mnl_attr_put_u32(&message, type, static_cast<uint32_t>(value));
  } else {
    mnl_attr_put_u64(&message, type, value);
  }
}

absl::Status CheckNapiChange(const NapiConfigChange& change) {
  const std::string what = absl::StrCat("netdev netlink napi-set napi ", change.napi_id);
  if (!change.defer_hard_irqs && !change.gro_flush_timeout_ns && !change.irq_suspend_timeout_ns) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": no setting to change"));
  }
  if (change.defer_hard_irqs && *change.defer_hard_irqs > kDeferHardIrqsMax) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": defer-hard-irqs ", *change.defer_hard_irqs, " is above ", kDeferHardIrqsMax));
  }
  return absl::OkStatus();
}

// napi-set's attributes for a change already checked.
void AppendNapiChange(nlmsghdr& message, const NapiConfigChange& change) {
  mnl_attr_put_u32(&message, kNapiId, change.napi_id);
  if (change.defer_hard_irqs) {
    mnl_attr_put_u32(&message, kNapiDeferHardIrqs, *change.defer_hard_irqs);
  }
  if (change.gro_flush_timeout_ns) {
    PutUint(message, kNapiGroFlushTimeout, *change.gro_flush_timeout_ns);
  }
  if (change.irq_suspend_timeout_ns) {
    PutUint(message, kNapiIrqSuspendTimeout, *change.irq_suspend_timeout_ns);
  }
}

}  // namespace

absl::Status PutNapiChange(nlmsghdr& message, const NapiConfigChange& change) {
  if (absl::Status status = CheckNapiChange(change); !status.ok()) return status;
  AppendNapiChange(message, change);
  return absl::OkStatus();
}

absl::StatusOr<NapiConfig> NapiConfig::Open() {
  absl::StatusOr<GenlSocket> socket = GenlSocket::Open();
  if (!socket.ok()) return socket.status();
  absl::StatusOr<NetdevFamily> netdev = ResolveNetdevFamily(*socket);
  if (!netdev.ok()) return netdev.status();
  return NapiConfig(*std::move(socket), std::move(netdev->family),
                    std::move(netdev->missing_reason));
}

absl::StatusOr<NapiInfo> NapiConfig::Get(uint32_t napi_id) {
  if (absl::Status status = CheckCommand(family_, missing_reason_, "napi-get", kCmdNapiGet);
      !status.ok()) {
    return status;
  }
  const std::string target = absl::StrCat("napi ", napi_id);
  const RequestContext context{kFamilyName, "napi-get", target};
  return socket_.RequestOne<NapiInfo>(
      context, family_->id, kCmdNapiGet, kFamilyVersion,
      [&](nlmsghdr& message) { mnl_attr_put_u32(&message, kNapiId, napi_id); }, ParseNapiMessage);
}

absl::Status NapiConfig::Set(const NapiConfigChange& change) {
  if (absl::Status status = CheckCommand(family_, missing_reason_, "napi-set", kCmdNapiSet);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckNapiChange(change); !status.ok()) return status;
  const std::string target = absl::StrCat("napi ", change.napi_id);
  const RequestContext context{kFamilyName, "napi-set", target};
  return socket_.Request(
      context, family_->id, kCmdNapiSet, kFamilyVersion, /*dump=*/false,
      [&](nlmsghdr& message) { AppendNapiChange(message, change); },
      [](const nlmsghdr&) { return absl::OkStatus(); });
}

absl::StatusOr<std::unique_ptr<NetdevTopology>> OpenNetdevNetlink() {
  absl::StatusOr<GenlSocket> socket = GenlSocket::Open();
  if (!socket.ok()) return socket.status();
  absl::StatusOr<NetdevFamily> netdev = ResolveNetdevFamily(*socket);
  if (!netdev.ok()) return netdev.status();
  return std::make_unique<NetdevNetlink>(*std::move(socket), std::move(netdev->family),
                                         std::move(netdev->missing_reason));
}

absl::StatusOr<NapiInfo> ParseNapiMessage(const nlmsghdr& message) {
  AttributeReader a =
      AttributeReader::FromMessage(message, sizeof(genlmsghdr), "netdev netlink napi-get");
  NapiInfo napi;
  const std::optional<uint32_t> id = a.U32(kNapiId, "id");
  const std::optional<uint32_t> ifindex = a.U32(kNapiIfindex, "ifindex");
  napi.irq = a.U32(kNapiIrq, "irq");
  napi.pid = a.U32(kNapiPid, "pid");
  napi.defer_hard_irqs = a.U32(kNapiDeferHardIrqs, "defer-hard-irqs");
  napi.gro_flush_timeout_ns = a.Uint(kNapiGroFlushTimeout, "gro-flush-timeout");
  napi.irq_suspend_timeout_ns = a.Uint(kNapiIrqSuspendTimeout, "irq-suspend-timeout");
  napi.threaded = a.U32(kNapiThreaded, "threaded");
  if (!a.status().ok()) return a.status();
  if (!id || !ifindex) {
    return absl::DataLossError("netdev netlink napi-get: reply without id or ifindex");
  }
  napi.id = *id;
  napi.ifindex = static_cast<int32_t>(*ifindex);
  return napi;
}

absl::StatusOr<NetdevQueue> ParseQueueMessage(const nlmsghdr& message) {
  AttributeReader a =
      AttributeReader::FromMessage(message, sizeof(genlmsghdr), "netdev netlink queue-get");
  NetdevQueue queue;
  const std::optional<uint32_t> id = a.U32(kQueueId, "id");
  const std::optional<uint32_t> ifindex = a.U32(kQueueIfindex, "ifindex");
  const std::optional<uint32_t> type = a.U32(kQueueType, "type");
  queue.napi_id = a.U32(kQueueNapiId, "napi-id");
  if (!a.status().ok()) return a.status();
  if (!id || !ifindex || !type) {
    return absl::DataLossError("netdev netlink queue-get: reply without id, ifindex or type");
  }
  queue.id = *id;
  queue.ifindex = static_cast<int32_t>(*ifindex);
  queue.type = *type == kQueueTypeRx   ? NetdevQueueType::kRx
               : *type == kQueueTypeTx ? NetdevQueueType::kTx
                                       : NetdevQueueType::kOther;
  return queue;
}

}  // namespace nictune::driver::netlink
