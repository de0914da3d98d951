// SPDX-License-Identifier: Apache-2.0
#include "tests/support/netns_host.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "tests/support/errno_error.h"
#include "tests/support/subprocess.h"

namespace nictune::testing_support {
namespace {

// Names must be unique per process (the pid) and per object (a counter), and device names must
// fit IFNAMSIZ (15 characters).
int NextSequence() {
  static std::atomic<int> sequence{0};
  return sequence.fetch_add(1);
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(absl::StrCat("open ", path), errno);
  std::string text;
  char buffer[8192];
  while (true) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error_number = errno;
      close(fd);
      return ErrnoError(absl::StrCat("read ", path), error_number);
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return text;
}

// Pins every kernel thread that polls `device`'s NAPI instances ("napi/DEVICE-ID") to `cpu`.
absl::Status PinNapiThreads(const std::string& device, int cpu) {
  const std::string prefix = "napi/" + device + "-";
  int pinned = 0;
  std::unique_ptr<DIR, int (*)(DIR*)> proc(opendir("/proc"), closedir);
  if (!proc) return ErrnoError("opendir /proc", errno);
  while (const dirent* entry = readdir(proc.get())) {
    int pid = 0;
    if (!absl::SimpleAtoi(entry->d_name, &pid)) continue;
    absl::StatusOr<std::string> comm = ReadWholeFile(absl::StrCat("/proc/", pid, "/comm"));
    if (!comm.ok() || !absl::StartsWith(*comm, prefix)) continue;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(static_cast<size_t>(cpu), &set);
    if (sched_setaffinity(pid, sizeof set, &set) != 0) {
      return ErrnoError(absl::StrCat("sched_setaffinity of ", prefix, "* (pid ", pid, ")"), errno);
    }
    ++pinned;
  }
  if (pinned == 0) return absl::NotFoundError(absl::StrCat("no thread named ", prefix, "*"));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<NetworkNamespace>> NetworkNamespace::Create(
    const std::string& name) {
  if (absl::Status added = RunChecked({"ip", "netns", "add", name}); !added.ok()) return added;
  auto netns = std::unique_ptr<NetworkNamespace>(new NetworkNamespace(name));
  if (absl::Status up = netns->Ip({"link", "set", "lo", "up"}); !up.ok()) return up;
  // IPv6 off inside the test host only (these sysctls are per namespace): no router and neighbour
  // solicitations mixing into the counts the tests compare.
  absl::Status quiet;
  absl::Status ran = netns->RunInside([&] {
    for (const char* path : {"/proc/sys/net/ipv6/conf/all/disable_ipv6",
                             "/proc/sys/net/ipv6/conf/default/disable_ipv6"}) {
      const int fd = open(path, O_WRONLY | O_CLOEXEC);
      if (fd < 0 && errno == ENOENT) return;  // a kernel without IPv6 is quiet already
      if (fd < 0 || write(fd, "1", 1) != 1) {
        quiet = ErrnoError(absl::StrCat("writing 1 to ", path, " in netns ", name), errno);
        if (fd >= 0) close(fd);
        return;
      }
      close(fd);
    }
  });
  if (!ran.ok()) return ran;
  if (!quiet.ok()) return quiet;
  return netns;
}

NetworkNamespace::~NetworkNamespace() {
  // A destructor cannot return the error; say it loudly so that a leak is noticed.
  if (absl::Status deleted = RunChecked({"ip", "netns", "del", name_}); !deleted.ok()) {
    std::cerr << "test host cleanup failed: " << deleted << "\n";
  }
}

absl::Status RunInNamedNamespace(const std::string& name, const std::function<void()>& fn) {
  const std::string path = absl::StrCat("/run/netns/", name);
  absl::Status status;
  std::thread worker([&] {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      status = ErrnoError(absl::StrCat("open ", path), errno);
      return;
    }
    const int rc = setns(fd, CLONE_NEWNET);
    const int error_number = errno;
    close(fd);
    if (rc != 0) {
      status = ErrnoError(absl::StrCat("setns(CLONE_NEWNET) into ", name), error_number);
      return;
    }
    fn();
  });
  worker.join();
  return status;
}

absl::StatusOr<std::string> ReadProcNetIn(const std::string& name, const std::string& file) {
  absl::StatusOr<std::string> text = absl::InternalError("not read");
  // /proc/thread-self/net follows the reading thread's namespace; /proc/self/net would follow
  // the main thread's.
  absl::Status ran =
      RunInNamedNamespace(name, [&] { text = ReadWholeFile("/proc/thread-self/net/" + file); });
  if (!ran.ok()) return ran;
  if (!text.ok()) {
    return absl::Status(text.status().code(),
                        absl::StrCat(text.status().message(), " in netns ", name));
  }
  return text;
}

absl::StatusOr<std::string> ReadFilesIn(const std::string& name,
                                        const std::vector<std::string>& files) {
  std::vector<std::string> argv = {"grep", "-H", ""};
  if (!name.empty()) argv.insert(argv.begin(), {"ip", "netns", "exec", name});
  argv.insert(argv.end(), files.begin(), files.end());
  absl::StatusOr<ProgramOutput> out = RunProgram(argv);
  if (!out.ok()) return out.status();
  if (out->exit_code != 0) {
    return absl::InternalError(absl::StrCat("read ", absl::StrJoin(files, " "), " in netns ",
                                            name.empty() ? "(the test's)" : name, ": grep exit ",
                                            out->exit_code, ": ", out->err));
  }
  return out->out;
}

absl::Status NetworkNamespace::Ip(const std::vector<std::string>& args) const {
  std::vector<std::string> argv = {"ip", "-n", name_};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunChecked(argv);
}

absl::StatusOr<DeviceCounters> NetworkNamespace::ReadDeviceCounters(
    const std::string& device) const {
  absl::StatusOr<std::string> text = ReadProcNet("dev");
  if (!text.ok()) return text.status();
  // "  name: rx_bytes rx_packets errs drop fifo frame compressed multicast tx_bytes tx_packets
  //  errs drop ..." (two header lines first).
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    ++line_number;
    const size_t colon = line.find(':');
    if (line_number <= 2 || colon == absl::string_view::npos) continue;
    if (absl::StripAsciiWhitespace(line.substr(0, colon)) != device) continue;
    std::vector<absl::string_view> fields =
        absl::StrSplit(line.substr(colon + 1), ' ', absl::SkipEmpty());
    if (fields.size() < 16) {
      return absl::InternalError(absl::StrCat("/proc/net/dev in netns ", name_, " line ",
                                              line_number, ": expected 16 columns, got ",
                                              fields.size()));
    }
    uint64_t values[16];
    for (size_t i = 0; i < 16; ++i) {
      if (!absl::SimpleAtoi(fields[i], &values[i])) {
        return absl::InternalError(absl::StrCat("/proc/net/dev in netns ", name_, " line ",
                                                line_number, ": column ", i + 1,
                                                " is not a counter: \"", fields[i], "\""));
      }
    }
    DeviceCounters counters;
    counters.rx_bytes = values[0];
    counters.rx_packets = values[1];
    counters.rx_dropped = values[3];
    counters.tx_bytes = values[8];
    counters.tx_packets = values[9];
    counters.tx_dropped = values[11];
    return counters;
  }
  return absl::NotFoundError(
      absl::StrCat("/proc/net/dev in netns ", name_, ": no device ", device));
}

absl::Status NetworkNamespace::SetEthtoolFlag(const std::string& device, uint32_t ethtool_command,
                                              bool enabled) const {
  absl::Status status;
  absl::Status ran = RunInside([&] {
    const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      status = ErrnoError("socket(AF_INET, SOCK_DGRAM) for SIOCETHTOOL", errno);
      return;
    }
    ethtool_value value{};
    value.cmd = ethtool_command;
    value.data = enabled ? 1 : 0;
    ifreq request{};
    std::strncpy(request.ifr_name, device.c_str(), IFNAMSIZ - 1);
    request.ifr_data = reinterpret_cast<char*>(&value);
    if (ioctl(fd, SIOCETHTOOL, &request) != 0) {
      status = ErrnoError(absl::StrCat("SIOCETHTOOL command ", ethtool_command, " = ", value.data,
                                       " on ", device, " in netns ", name_),
                          errno);
    }
    close(fd);
  });
  return ran.ok() ? status : ran;
}

absl::StatusOr<std::unique_ptr<VethHosts>> VethHosts::Create(const VethHostsOptions& options) {
  const std::string tag = absl::StrCat(getpid(), "x", NextSequence());
  auto hosts = std::unique_ptr<VethHosts>(new VethHosts());
  absl::StatusOr<std::unique_ptr<NetworkNamespace>> a = NetworkNamespace::Create("nt-a-" + tag);
  if (!a.ok()) return a.status();
  hosts->a_ = *std::move(a);
  absl::StatusOr<std::unique_ptr<NetworkNamespace>> b = NetworkNamespace::Create("nt-b-" + tag);
  if (!b.ok()) return b.status();
  hosts->b_ = *std::move(b);

  hosts->device_a_ = "nva" + tag;
  hosts->device_b_ = "nvb" + tag;
  if (hosts->device_a_.size() >= IFNAMSIZ) {
    return absl::InternalError(
        absl::StrCat("veth name ", hosts->device_a_, " exceeds ", IFNAMSIZ - 1, " characters"));
  }
  // Created inside a and moved straight into b: neither end ever exists in the host namespace.
  // Fixed locally administered MACs and permanent neighbours: no ARP crosses the pair, so the
  // devices count only the tests' own datagrams.
  const std::string mac_a = "02:13:00:00:00:01";
  const std::string mac_b = "02:13:00:00:00:02";
  if (absl::Status s =
          hosts->a_->Ip({"link", "add", hosts->device_a_, "address", mac_a, "type", "veth", "peer",
                         "name", hosts->device_b_, "address", mac_b, "netns", hosts->b_->name()});
      !s.ok()) {
    return s;
  }
  hosts->address_a_ = "10.213.0.1";
  hosts->address_b_ = "10.213.0.2";
  if (absl::Status s =
          hosts->a_->Ip({"addr", "add", hosts->address_a_ + "/30", "dev", hosts->device_a_});
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          hosts->b_->Ip({"addr", "add", hosts->address_b_ + "/30", "dev", hosts->device_b_});
      !s.ok()) {
    return s;
  }
  if (options.napi_on_b) {
    if (absl::Status s = hosts->b_->SetEthtoolFlag(hosts->device_b_, ETHTOOL_SGRO, true); !s.ok()) {
      return s;
    }
    if (absl::Status s = hosts->a_->SetEthtoolFlag(hosts->device_a_, ETHTOOL_STSO, false);
        !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = hosts->a_->Ip({"neigh", "replace", hosts->address_b_, "lladdr", mac_b, "dev",
                                      hosts->device_a_, "nud", "permanent"});
      !s.ok()) {
    return s;
  }
  if (absl::Status s = hosts->b_->Ip({"neigh", "replace", hosts->address_a_, "lladdr", mac_a, "dev",
                                      hosts->device_b_, "nud", "permanent"});
      !s.ok()) {
    return s;
  }
  if (absl::Status s = hosts->a_->Ip({"link", "set", hosts->device_a_, "up"}); !s.ok()) return s;
  if (absl::Status s = hosts->b_->Ip({"link", "set", hosts->device_b_, "up"}); !s.ok()) return s;
  if (options.threaded_napi_on_b) {
    // `ip netns exec` mounts a sysfs of the namespace, where b's veth is.
    if (absl::Status s = RunChecked({"ip", "netns", "exec", hosts->b_->name(), "sh", "-c",
                                     "echo 1 > /sys/class/net/" + hosts->device_b_ + "/threaded"});
        !s.ok()) {
      return s;
    }
    if (options.napi_thread_cpu >= 0) {
      if (absl::Status s = PinNapiThreads(hosts->device_b_, options.napi_thread_cpu); !s.ok()) {
        return s;
      }
    }
  }
  if (options.tap_in_b) {
    hosts->tap_b_ = "ntt" + tag;
    if (absl::Status s = hosts->b_->Ip({"tuntap", "add", "dev", hosts->tap_b_, "mode", "tap"});
        !s.ok()) {
      return s;
    }
  }
  return hosts;
}

}  // namespace nictune::testing_support
