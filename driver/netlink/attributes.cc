// SPDX-License-Identifier: Apache-2.0
#include "driver/netlink/attributes.h"

#include <libmnl/libmnl.h>

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace nictune::driver::netlink {
namespace {

int Collect(const nlattr* attribute, void* data) {
  static_cast<std::vector<const nlattr*>*>(data)->push_back(attribute);
  return MNL_CB_OK;
}

absl::string_view View(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}

}  // namespace

AttributeReader AttributeReader::FromMessage(const nlmsghdr& message, size_t header_bytes,
                                             std::string context) {
  std::vector<const nlattr*> attributes;
  const int rc =
      mnl_attr_parse(&message, static_cast<unsigned int>(header_bytes), Collect, &attributes);
  AttributeReader reader(std::move(attributes), std::move(context));
  if (rc < 0) {
    reader.status_ =
        absl::DataLossError(absl::StrCat(reader.context_, ": malformed attributes in reply"));
  }
  return reader;
}

AttributeReader AttributeReader::FromNested(const nlattr& nest, std::string context) {
  std::vector<const nlattr*> attributes;
  const int rc = mnl_attr_parse_nested(&nest, Collect, &attributes);
  AttributeReader reader(std::move(attributes), std::move(context));
  if (rc < 0) {
    reader.status_ =
        absl::DataLossError(absl::StrCat(reader.context_, ": malformed nested attributes"));
  }
  return reader;
}

const nlattr* AttributeReader::Get(uint16_t type) const {
  // The last instance wins, as in the kernel's own nla_parse.
  const nlattr* found = nullptr;
  for (const nlattr* attribute : attributes_) {
    if (mnl_attr_get_type(attribute) == type) found = attribute;
  }
  return found;
}

std::vector<const nlattr*> AttributeReader::All(uint16_t type) const {
  std::vector<const nlattr*> out;
  for (const nlattr* attribute : attributes_) {
    if (mnl_attr_get_type(attribute) == type) out.push_back(attribute);
  }
  return out;
}

const nlattr* AttributeReader::Sized(uint16_t type, std::string_view name, size_t min_bytes,
                                     size_t max_bytes) {
  const nlattr* attribute = Get(type);
  if (attribute == nullptr) return nullptr;
  const size_t length = mnl_attr_get_payload_len(attribute);
  if (length < min_bytes || length > max_bytes) {
    if (status_.ok()) {
      status_ = absl::DataLossError(absl::StrCat(context_, ": attribute ", View(name), " (type ",
                                                 type, ") has ", length, " bytes, expected ",
                                                 min_bytes == max_bytes
                                                     ? absl::StrCat(max_bytes)
                                                     : absl::StrCat(min_bytes, " to ", max_bytes)));
    }
    return nullptr;
  }
  return attribute;
}

std::optional<uint8_t> AttributeReader::U8(uint16_t type, std::string_view name) {
  const nlattr* attribute = Sized(type, name, 1, 1);
  if (attribute == nullptr) return std::nullopt;
  return mnl_attr_get_u8(attribute);
}

std::optional<uint16_t> AttributeReader::U16(uint16_t type, std::string_view name) {
  const nlattr* attribute = Sized(type, name, 2, 2);
  if (attribute == nullptr) return std::nullopt;
  return mnl_attr_get_u16(attribute);
}

std::optional<uint32_t> AttributeReader::U32(uint16_t type, std::string_view name) {
  const nlattr* attribute = Sized(type, name, 4, 4);
  if (attribute == nullptr) return std::nullopt;
  return mnl_attr_get_u32(attribute);
}

std::optional<bool> AttributeReader::Bool(uint16_t type, std::string_view name) {
  const std::optional<uint8_t> value = U8(type, name);
  if (!value) return std::nullopt;
  return *value != 0;
}

std::optional<uint64_t> AttributeReader::Uint(uint16_t type, std::string_view name) {
  const nlattr* attribute = Sized(type, name, 4, 8);
  if (attribute == nullptr) return std::nullopt;
  const size_t length = mnl_attr_get_payload_len(attribute);
  if (length == 4) return mnl_attr_get_u32(attribute);
  if (length == 8) {
    uint64_t value = 0;
    std::memcpy(&value, mnl_attr_get_payload(attribute), sizeof value);
    return value;
  }
  if (status_.ok()) {
    status_ = absl::DataLossError(absl::StrCat(context_, ": attribute ", View(name), " (type ",
                                               type, ") has ", length, " bytes, expected 4 or 8"));
  }
  return std::nullopt;
}

std::optional<std::string> AttributeReader::String(uint16_t type, std::string_view name) {
  const nlattr* attribute = Get(type);
  if (attribute == nullptr) return std::nullopt;
  const auto* text = static_cast<const char*>(mnl_attr_get_payload(attribute));
  const size_t length = mnl_attr_get_payload_len(attribute);
  if (length == 0) return std::string();
  if (text[length - 1] != '\0') {
    if (status_.ok()) {
      status_ = absl::DataLossError(
          absl::StrCat(context_, ": attribute ", View(name), " is not NUL-terminated"));
    }
    return std::nullopt;
  }
  return std::string(text, length - 1);
}

}  // namespace nictune::driver::netlink
