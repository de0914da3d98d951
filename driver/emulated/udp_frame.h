// SPDX-License-Identifier: Apache-2.0
// Ethernet + IPv4 + UDP frames as the emulated NIC hands them to the kernel, with valid IPv4
// header and UDP checksums (the kernel verifies both: a TAP frame is CHECKSUM_NONE).
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace nictune::driver::emulated {

struct FrameAddresses {
  std::array<uint8_t, 6> destination_mac{};
  std::array<uint8_t, 6> source_mac{};
  uint32_t source_ip = 0;  // host byte order
  uint32_t destination_ip = 0;
  uint16_t source_port = 0;
  uint16_t destination_port = 0;
};

// Writes a frame of frame.size() bytes (kMinFrameBytes..kMaxFrameBytes): headers, then the
// 8-byte sequence number (big endian), then zero padding. ip_id goes into the IPv4 header.
void BuildUdpFrame(const FrameAddresses& addresses, uint16_t ip_id, uint64_t sequence,
                   std::span<uint8_t> frame);

// The Internet checksum (RFC 1071) of `bytes`, folded, not complemented, starting from `sum`.
uint32_t OnesComplementSum(std::span<const uint8_t> bytes, uint32_t sum);
uint16_t FoldChecksum(uint32_t sum);

}  // namespace nictune::driver::emulated
