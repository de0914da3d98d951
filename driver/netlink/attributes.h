// SPDX-License-Identifier: Apache-2.0
// Reading netlink attributes by type with length checks. A wrong length is a kernel/userspace
// ABI mismatch: it is reported once, naming the attribute, instead of reading garbage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

struct nlattr;
struct nlmsghdr;

namespace nictune::driver::netlink {

class AttributeReader {
 public:
  // Attributes of a message after `header_bytes` of family header (sizeof(genlmsghdr)).
  static AttributeReader FromMessage(const nlmsghdr& message, size_t header_bytes,
                                     std::string context);
  // Attributes inside a nested attribute.
  static AttributeReader FromNested(const nlattr& nest, std::string context);

  // Each returns nullopt when the attribute is absent (or malformed: then status() fails).
  std::optional<uint8_t> U8(uint16_t type, std::string_view name);
  std::optional<uint16_t> U16(uint16_t type, std::string_view name);
  std::optional<uint32_t> U32(uint16_t type, std::string_view name);
  std::optional<bool> Bool(uint16_t type, std::string_view name);  // u8, nonzero = true
  // Netlink "uint": 4 or 8 bytes depending on the value (netdev family).
  std::optional<uint64_t> Uint(uint16_t type, std::string_view name);
  std::optional<std::string> String(uint16_t type, std::string_view name);
  const nlattr* Get(uint16_t type) const;

  // Every attribute of `type` in order (repeated attributes, arrays of nests).
  std::vector<const nlattr*> All(uint16_t type) const;

  // Every attribute in message order (arrays whose entries are typed by position).
  const std::vector<const nlattr*>& attributes() const { return attributes_; }

  const absl::Status& status() const { return status_; }

 private:
  AttributeReader(std::vector<const nlattr*> attributes, std::string context)
      : attributes_(std::move(attributes)), context_(std::move(context)) {}
  const nlattr* Sized(uint16_t type, std::string_view name, size_t min_bytes, size_t max_bytes);

  std::vector<const nlattr*> attributes_;  // in message order
  std::string context_;
  absl::Status status_;
};

}  // namespace nictune::driver::netlink
