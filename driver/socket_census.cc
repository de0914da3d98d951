// SPDX-License-Identifier: Apache-2.0
// OpenSocketCensus (driver/socket_memory.h): at each read, each network namespace listed from a
// thread inside it by the first lister that answers there; the sock_diag lister opens its socket
// for the dump and closes it after. A socket kept open would keep its namespace alive after
// `ip netns del` and the last process in it are gone, with its devices. The list of
// namespaces is looked for again every kRescanInterval, so that one made after the agent started
// is read from the next rescan on.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "driver/network_namespaces.h"
#include "driver/socket_memory.h"

namespace nictune::driver {
namespace {

constexpr absl::Duration kRescanInterval = absl::Seconds(10);

// /proc/net/snmp is about 1.5 KB and netstat 4 KB; a file larger than this is not the one
// expected.
constexpr size_t kMaxCountersFileBytes = 64 << 10;

// A socket is worth keeping when it dropped or holds data; the most dropping and fullest first.
bool WorthKeeping(const SocketMemory& s) { return s.drops > 0 || s.rmem_alloc > 0; }

bool MoreTelling(const SocketMemory& x, const SocketMemory& y) {
  if (x.drops != y.drops) return x.drops > y.drops;
  const double x_fill = x.rcvbuf == 0 ? 0 : static_cast<double>(x.rmem_alloc) / x.rcvbuf;
  const double y_fill = y.rcvbuf == 0 ? 0 : static_cast<double>(y.rmem_alloc) / y.rcvbuf;
  return x_fill > y_fill;
}

class ListedCensus : public SocketCensusSource {
 public:
  ListedCensus(SocketCensusOptions options, std::string proc_root,
               std::vector<std::unique_ptr<UdpSocketLister>> listers)
      : options_(options), proc_root_(std::move(proc_root)), listers_(std::move(listers)) {}

  absl::StatusOr<SocketCensus> Read() override {
    if (absl::Now() >= next_rescan_) Rescan();
    SocketCensus census;
    census.namespaces_unread = beyond_cap_;
    absl::Status last_error = absl::UnavailableError("socket census: no network namespace to read");
    for (const NetworkNamespaceRef& ns : namespaces_) {
      absl::Status listed = ListNamespace(ns, census);
      if (listed.ok()) {
        ++census.namespaces;
      } else {
        ++census.namespaces_unread;
        last_error = listed;
      }
    }
    if (census.namespaces == 0) return last_error;
    Trim(census);
    return census;
  }

 private:
  // The namespace's sockets from the first lister that answers, on the calling thread (inside
  // the namespace). Nothing of a lister that failed is kept.
  absl::Status ListInside(uint32_t netns_inode, SocketCensus& census) const {
    absl::Status first_failure;
    for (const std::unique_ptr<UdpSocketLister>& lister : listers_) {
      std::vector<SocketMemory> kept;
      uint64_t seen = 0;
      const absl::Status listed = lister->List(netns_inode, [&](const SocketMemory& s) {
        ++seen;
        if (WorthKeeping(s)) kept.push_back(s);
      });
      if (!listed.ok()) {
        if (first_failure.ok()) first_failure = listed;
        continue;
      }
      census.sockets_seen += seen;
      census.sockets.insert(census.sockets.end(), kept.begin(), kept.end());
      if (lister != listers_.front()) {
        ++census.namespaces_by_fallback;
        if (census.fallback_note.empty()) {
          census.fallback_note = absl::StrCat(std::string(lister->name()), " where ",
                                              std::string(listers_.front()->name()),
                                              " failed: ", first_failure.message());
        }
      }
      return absl::OkStatus();
    }
    return first_failure.ok() ? absl::FailedPreconditionError("socket census: no lister")
                              : first_failure;
  }

  absl::Status ListNamespace(const NetworkNamespaceRef& ns, SocketCensus& census) const {
    // The reader's own namespace needs no thread of its own to enter it: one interval's
    // thread fewer on a host without containers.
    if (own_inode_.ok() && ns.inode == *own_inode_) return ListInside(ns.inode, census);
    absl::Status listed;
    NamespaceCountersText counters{.netns_inode = ns.inode};
    absl::Status entered = RunInNetworkNamespace(ns.path, [&] {
      listed = ListInside(ns.inode, census);
      if (!listed.ok()) return;
      counters.snmp = ReadThreadProcNet("snmp", kMaxCountersFileBytes).value_or("");
      counters.netstat = ReadThreadProcNet("netstat", kMaxCountersFileBytes).value_or("");
    });
    if (!counters.snmp.empty() || !counters.netstat.empty()) {
      census.counters.push_back(std::move(counters));
    }
    return entered.ok() ? listed : entered;
  }

  void Trim(SocketCensus& census) const {
    std::sort(census.sockets.begin(), census.sockets.end(), MoreTelling);
    if (census.sockets.size() > options_.max_sockets) {
      census.sockets.resize(options_.max_sockets);
      census.truncated = true;
    }
  }

  void Rescan() {
    next_rescan_ = absl::Now() + kRescanInterval;
    namespaces_ = ListNetworkNamespaces(proc_root_, "/run/netns");
    beyond_cap_ = 0;
    if (namespaces_.size() > options_.max_namespaces) {
      beyond_cap_ = static_cast<uint32_t>(namespaces_.size() - options_.max_namespaces);
      namespaces_.resize(options_.max_namespaces);
    }
  }

  const SocketCensusOptions options_;
  const std::string proc_root_;
  const std::vector<std::unique_ptr<UdpSocketLister>> listers_;
  // The namespace of the thread that reads (nictuned's sampling loop), which opened this census.
  const absl::StatusOr<uint32_t> own_inode_ = NetworkNamespaceInode("/proc/thread-self/ns/net");
  absl::Time next_rescan_ = absl::InfinitePast();
  std::vector<NetworkNamespaceRef> namespaces_;
  uint32_t beyond_cap_ = 0;
};

}  // namespace

std::unique_ptr<SocketCensusSource> OpenSocketCensus(
    const SocketCensusOptions& options, const std::string& proc_root,
    std::vector<std::unique_ptr<UdpSocketLister>> listers) {
  return std::make_unique<ListedCensus>(options, proc_root, std::move(listers));
}

std::unique_ptr<SocketCensusSource> OpenSockDiagCensus(const SocketCensusOptions& options,
                                                       const std::string& proc_root) {
  std::vector<std::unique_ptr<UdpSocketLister>> listers;
  listers.push_back(SockDiagUdpLister());
  listers.push_back(ProcNetUdpLister());
  return OpenSocketCensus(options, proc_root, std::move(listers));
}

}  // namespace nictune::driver
