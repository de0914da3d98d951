// SPDX-License-Identifier: Apache-2.0
// One reply of an RTM_GETSTATS dump, parsed: in the parsers' own library (nictune_netlink_parse),
// so that its fuzzer links the parser and nothing else of driver/.
#pragma once

#include "absl/status/statusor.h"
#include "driver/link_statistics.h"

struct nlmsghdr;

namespace nictune::driver::netlink {

// One if_stats_msg with IFLA_STATS_LINK_64. InvalidArgument, naming what is short or missing, for
// a reply shorter than its header, without the attribute, or with fewer counters than
// kLinkStatisticNames (every kernel with RTM_GETSTATS has them all).
absl::StatusOr<LinkStatistics> ParseLinkStatsReply(const nlmsghdr& reply);

}  // namespace nictune::driver::netlink
