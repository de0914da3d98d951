// SPDX-License-Identifier: Apache-2.0
#include "driver/emulated/nic/napi_pollers.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "driver/netlink/netlink_error.h"

namespace nictune::driver::emulated {
namespace {

constexpr size_t kTaskCommLength = 15;  // TASK_COMM_LEN less the terminating NUL

// Runs in a child: the process's own /sys shows the host's devices, not its namespace's, so the
// child mounts a sysfs of the NIC's namespace in a mount namespace of its own (as `ip netns exec`
// does) and writes there. The parent's mounts, /run/netns among them, stay as they are.
[[noreturn]] void WriteThreadedInChild(const std::string& device) {
  if (unshare(CLONE_NEWNS) != 0) _exit(errno);
  if (mount(nullptr, "/", nullptr, MS_REC | MS_SLAVE, nullptr) != 0) _exit(errno);
  if (umount2("/sys", MNT_DETACH) != 0 && errno != EINVAL) _exit(errno);
  if (mount("sysfs", "/sys", "sysfs", 0, nullptr) != 0) _exit(errno);
  const std::string path = absl::StrCat("/sys/class/net/", device, "/threaded");
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) _exit(errno);
  if (write(fd, "1", 1) != 1) _exit(errno);
  _exit(close(fd) == 0 ? 0 : errno);
}

absl::Status EnableThreadedNapi(const std::string& device) {
  const pid_t child = fork();
  if (child < 0) return netlink::ErrnoStatus("fork for /sys/class/net/DEV/threaded", errno);
  if (child == 0) WriteThreadedInChild(device);
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return netlink::ErrnoStatus("waitpid threaded-NAPI writer", errno);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return absl::OkStatus();
  const int err = WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
  return netlink::ErrnoStatus(absl::StrCat("write 1 to /sys/class/net/", device, "/threaded"), err);
}

absl::Status PlacePoller(pid_t pid, int cpu, int fifo_priority) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<size_t>(cpu), &set);
  if (sched_setaffinity(pid, sizeof(set), &set) != 0) {
    return netlink::ErrnoStatus(
        absl::StrCat("sched_setaffinity NAPI thread ", pid, " to CPU ", cpu), errno);
  }
  if (fifo_priority <= 0) return absl::OkStatus();
  sched_param param{};
  param.sched_priority = fifo_priority;
  if (sched_setscheduler(pid, SCHED_FIFO, &param) != 0) {
    return netlink::ErrnoStatus(
        absl::StrCat("sched_setscheduler NAPI thread ", pid, " SCHED_FIFO ", fifo_priority), errno);
  }
  return absl::OkStatus();
}

// voluntary_ctxt_switches of a thread: a NAPI thread adds one each time it sleeps after polling.
int64_t VoluntarySwitches(pid_t pid) {
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(status, line)) {
    absl::string_view view = line;
    if (!absl::ConsumePrefix(&view, "voluntary_ctxt_switches:")) continue;
    int64_t switches = 0;
    if (absl::SimpleAtoi(view, &switches)) return switches;
  }
  return -1;
}

// Locally administered, neither the TAP's MAC nor broadcast: eth_type_trans marks it for another
// host, so it is polled and dropped without reaching IP.
std::vector<uint8_t> ForeignFrame() {
  std::vector<uint8_t> frame(60, 0);
  const uint8_t destination[] = {0x02, 0x6e, 0x69, 0x63, 0x74, 0xfe};
  std::copy(std::begin(destination), std::end(destination), frame.begin());
  std::copy(std::begin(destination), std::end(destination), frame.begin() + 6);
  frame[12] = 0x88;  // IEEE 802 local experimental ethertype 0x88b5
  frame[13] = 0xb5;
  return frame;
}

absl::StatusOr<pid_t> PollerOfQueue(const std::vector<pid_t>& pollers, size_t queue,
                                    const DeliverToQueue& deliver) {
  static const std::vector<uint8_t> frame = ForeignFrame();
  std::vector<int64_t> before;
  for (pid_t pid : pollers) before.push_back(VoluntarySwitches(pid));
  if (!deliver(queue, frame)) {
    return absl::FailedPreconditionError(
        absl::StrCat("queue ", queue, ": the TAP refused a frame"));
  }
  for (int attempt = 0; attempt < 100; ++attempt) {
    usleep(1000);  // the poller runs below this thread, on its CPU, once this one sleeps
    for (size_t i = 0; i < pollers.size(); ++i) {
      if (VoluntarySwitches(pollers[i]) > before[i]) return pollers[i];
    }
  }
  return absl::FailedPreconditionError(
      absl::StrCat("queue ", queue, ": no NAPI thread ran within 100 ms of a frame"));
}

}  // namespace

std::vector<pid_t> ListNapiThreads(const std::string& device) {
  const std::string prefix = absl::StrCat("napi/", device, "-").substr(0, kTaskCommLength);
  std::vector<pid_t> pids;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return pids;
  while (const dirent* entry = readdir(proc)) {
    pid_t pid = 0;
    if (!absl::SimpleAtoi(entry->d_name, &pid)) continue;
    std::ifstream comm(absl::StrCat("/proc/", pid, "/comm"));
    std::string name;
    if (std::getline(comm, name) && absl::StartsWith(name, prefix)) {
      pids.push_back(pid);
    }
  }
  closedir(proc);
  std::sort(pids.begin(), pids.end());
  return pids;
}

absl::StatusOr<std::vector<pid_t>> StartThreadedNapi(const NapiPollerConfig& config,
                                                     const DeliverToQueue& deliver) {
  // The kernel names every TAP queue's thread alike (tun's NAPIs have no id), so ours are the
  // threads that switching this device on creates.
  const std::vector<pid_t> before = ListNapiThreads(config.device);
  if (absl::Status enabled = EnableThreadedNapi(config.device); !enabled.ok()) return enabled;
  std::vector<pid_t> pollers;
  for (pid_t pid : ListNapiThreads(config.device)) {
    if (!std::binary_search(before.begin(), before.end(), pid)) pollers.push_back(pid);
  }
  if (pollers.size() != config.queues) {
    return absl::FailedPreconditionError(
        absl::StrCat("threaded NAPI on ", config.device, ": ", pollers.size(),
                     " new NAPI threads, expected one per queue (", config.queues, ")"));
  }
  for (pid_t pid : pollers) {
    if (absl::Status placed = PlacePoller(pid, config.cpu, config.fifo_priority); !placed.ok()) {
      return placed;
    }
  }
  std::vector<pid_t> by_queue;
  for (size_t queue = 0; queue < config.queues; ++queue) {
    absl::StatusOr<pid_t> poller = PollerOfQueue(pollers, queue, deliver);
    if (!poller.ok()) return poller.status();
    by_queue.push_back(*poller);
  }
  return by_queue;
}

}  // namespace nictune::driver::emulated
