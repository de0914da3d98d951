// SPDX-License-Identifier: Apache-2.0
#include "driver/proc_net_udp.h"

#include <netinet/in.h>

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace nictune::driver {
namespace {

// The columns of a line, as udp4_format_sock and udp6_sock_seq_show write them: sl,
// local_address, rem_address, st, tx_queue:rx_queue, tr:tm->when, retrnsmt, uid, timeout, inode,
// ref, pointer, drops.
constexpr size_t kLocalAddress = 1;
constexpr size_t kQueues = 4;
constexpr size_t kInode = 9;
constexpr size_t kDrops = 12;
constexpr size_t kColumns = 13;

bool ParseHex(absl::string_view text, uint32_t& out) {
  return !text.empty() && text.size() <= 8 && absl::SimpleHexAtoi(text, &out);
}

// The part after the last ':' of "ADDRESS:PORT" or "TX:RX".
absl::string_view AfterColon(absl::string_view field) {
  const size_t colon = field.rfind(':');
  return colon == absl::string_view::npos ? absl::string_view() : field.substr(colon + 1);
}

absl::Status ParseLine(absl::string_view line, uint16_t family, uint32_t netns_inode,
                       SocketMemory& out) {
  const std::vector<absl::string_view> columns = absl::StrSplit(line, ' ', absl::SkipWhitespace());
  if (columns.size() < kColumns) {
    return absl::InvalidArgumentError(
        absl::StrCat(columns.size(), " columns, expected at least ", kColumns));
  }
  uint32_t port = 0;
  uint32_t rx_queue = 0;
  if (!ParseHex(AfterColon(columns[kLocalAddress]), port) || port > 0xffff) {
    return absl::InvalidArgumentError(
        absl::StrCat("local_address \"", columns[kLocalAddress], "\" has no hex port"));
  }
  if (!ParseHex(AfterColon(columns[kQueues]), rx_queue)) {
    return absl::InvalidArgumentError(
        absl::StrCat("tx_queue:rx_queue \"", columns[kQueues], "\" is not two hex numbers"));
  }
  if (!absl::SimpleAtoi(columns[kInode], &out.inode)) {
    return absl::InvalidArgumentError(absl::StrCat("inode \"", columns[kInode], "\""));
  }
  if (!absl::SimpleAtoi(columns[kDrops], &out.drops)) {
    return absl::InvalidArgumentError(absl::StrCat("drops \"", columns[kDrops], "\""));
  }
  out.family = family;
  out.protocol = IPPROTO_UDP;
  out.local_port = static_cast<uint16_t>(port);
  out.netns_inode = netns_inode;
  out.rmem_alloc = rx_queue;
  out.rcvbuf = 0;
  out.cookie = ProcSocketKey(netns_inode, out.inode);
  return absl::OkStatus();
}

}  // namespace

uint64_t ProcSocketKey(uint32_t netns_inode, uint32_t socket_inode) {
  constexpr uint64_t kTopBit = uint64_t{1} << 63;
  // Namespace inodes are 0xF000_0000 and up: their low 31 bits tell them apart.
  return kTopBit | (uint64_t{netns_inode & 0x7fffffffu} << 32) | socket_inode;
}

absl::StatusOr<std::vector<SocketMemory>> ParseProcNetUdp(absl::string_view text,
                                                          absl::string_view file, uint16_t family,
                                                          uint32_t netns_inode) {
  std::vector<SocketMemory> sockets;
  int number = 0;
  bool header = false;
  for (const absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    const absl::string_view trimmed = absl::StripAsciiWhitespace(line);
    if (trimmed.empty()) continue;
    if (!header) {
      if (!absl::StartsWith(trimmed, "sl ")) {
        return absl::InvalidArgumentError(
            absl::StrCat(file, " line ", number, ": expected the header \"sl local_address ...\""));
      }
      header = true;
      continue;
    }
    SocketMemory socket;
    if (absl::Status parsed = ParseLine(trimmed, family, netns_inode, socket); !parsed.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(file, " line ", number, ": ",
                                                     parsed.message(), ": \"", trimmed, "\""));
    }
    sockets.push_back(socket);
  }
  if (!header) return absl::InvalidArgumentError(absl::StrCat(file, ": empty, no header line"));
  return sockets;
}

}  // namespace nictune::driver
