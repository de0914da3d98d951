// SPDX-License-Identifier: Apache-2.0
#include "driver/emulated/udp_frame.h"

#include <algorithm>
#include <cstddef>

namespace nictune::driver::emulated {
namespace {

constexpr size_t kEthernetBytes = 14;
constexpr size_t kIpv4Bytes = 20;
constexpr size_t kUdpBytes = 8;

void Put16(std::span<uint8_t> out, size_t at, uint16_t value) {
  out[at] = static_cast<uint8_t>(value >> 8);
  out[at + 1] = static_cast<uint8_t>(value & 0xff);
}

void Put32(std::span<uint8_t> out, size_t at, uint32_t value) {
  Put16(out, at, static_cast<uint16_t>(value >> 16));
  Put16(out, at + 2, static_cast<uint16_t>(value & 0xffff));
}

}  // namespace

uint32_t OnesComplementSum(std::span<const uint8_t> bytes, uint32_t sum) {
  uint64_t total = sum;
  size_t i = 0;
  for (; i + 1 < bytes.size(); i += 2) {
    total += static_cast<uint32_t>(bytes[i] << 8 | bytes[i + 1]);
  }
  if (i < bytes.size()) total += static_cast<uint32_t>(bytes[i] << 8);
  while (total >> 32) total = (total & 0xffffffff) + (total >> 32);
  return static_cast<uint32_t>(total);
}

uint16_t FoldChecksum(uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(sum);
}

void BuildUdpFrame(const FrameAddresses& addresses, uint16_t ip_id, uint64_t sequence,
                   std::span<uint8_t> frame) {
  std::fill(frame.begin(), frame.end(), uint8_t{0});
  std::copy(addresses.destination_mac.begin(), addresses.destination_mac.end(), frame.begin());
  std::copy(addresses.source_mac.begin(), addresses.source_mac.end(), frame.begin() + 6);
  Put16(frame, 12, 0x0800);  // ETH_P_IP

  std::span<uint8_t> ip = frame.subspan(kEthernetBytes);
  const auto ip_length = static_cast<uint16_t>(frame.size() - kEthernetBytes);
  ip[0] = 0x45;  // IPv4, 5 words of header
  Put16(ip, 2, ip_length);
  Put16(ip, 4, ip_id);
  Put16(ip, 6, 0x4000);  // don't fragment
  ip[8] = 64;            // TTL
  ip[9] = 17;            // IPPROTO_UDP
  Put32(ip, 12, addresses.source_ip);
  Put32(ip, 16, addresses.destination_ip);
  Put16(ip, 10, static_cast<uint16_t>(~FoldChecksum(OnesComplementSum(ip.first(kIpv4Bytes), 0))));

  std::span<uint8_t> udp = ip.subspan(kIpv4Bytes);
  const auto udp_length = static_cast<uint16_t>(ip_length - kIpv4Bytes);
  Put16(udp, 0, addresses.source_port);
  Put16(udp, 2, addresses.destination_port);
  Put16(udp, 4, udp_length);
  for (size_t i = 0; i < 8; ++i) {
    udp[kUdpBytes + i] = static_cast<uint8_t>(sequence >> (56 - 8 * i));
  }
  // Pseudo header: addresses, protocol, UDP length.
  uint32_t sum = OnesComplementSum(ip.subspan(12, 8), 0);
  sum += 17;
  sum += udp_length;
  sum = OnesComplementSum(udp, sum);
  uint16_t checksum = static_cast<uint16_t>(~FoldChecksum(sum));
  if (checksum == 0) checksum = 0xffff;  // 0 means "no checksum" in UDP over IPv4
  Put16(udp, 6, checksum);
}

}  // namespace nictune::driver::emulated
