// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for sock_diag replies (driver/netlink/inet_diag_reply.h): any bytes after a
// netlink header whose length says how many arrived, as mnl_cb_run hands each reply on. The parser
// must answer with a socket or an error, reading nothing past the message.
#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "driver/netlink/inet_diag_reply.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  constexpr uint32_t kNamespace = 4026531840;
  // Heap storage of exactly the message and its padding to a 4-byte boundary, which a receive
  // buffer always holds and libmnl's attribute walk reads up to (operator new aligns it for
  // nlmsghdr), so that ASan reports any read past them.
  const size_t length = NLMSG_HDRLEN + size;
  std::vector<uint8_t> message(NLMSG_ALIGN(length));
  const nlmsghdr header{.nlmsg_len = static_cast<uint32_t>(length), .nlmsg_type = 20};
  std::memcpy(message.data(), &header, sizeof header);
  if (size > 0) std::memcpy(message.data() + NLMSG_HDRLEN, data, size);
  const auto parsed = nictune::driver::netlink::ParseInetDiagReply(
      *reinterpret_cast<const nlmsghdr*>(message.data()), kNamespace);
  if (parsed.ok() && parsed->netns_inode != kNamespace) std::abort();
  return 0;
}
