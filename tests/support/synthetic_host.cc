// SPDX-License-Identifier: Apache-2.0
#include "tests/support/synthetic_host.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "driver/link_statistics.h"

namespace nictune::testing_support {
namespace {

namespace fs = std::filesystem;

absl::Status ErrnoError(std::string_view operation, const std::string& path, int error_number) {
  return absl::InternalError(absl::StrCat(std::string(operation), " ", path, ": ",
                                          std::strerror(error_number), " (errno ", error_number,
                                          ")"));
}

absl::Status WriteText(const std::string& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoError("open for writing", path, errno);
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error_number = errno;
      ::close(fd);
      return ErrnoError("write", path, error_number);
    }
    written += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return ErrnoError("close", path, errno);
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadText(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("open", path, errno);
  std::string text;
  char buffer[4096];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      const int error_number = errno;
      ::close(fd);
      return ErrnoError("read", path, error_number);
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

absl::Status MakeDirectories(const std::string& path) {
  std::error_code error;
  fs::create_directories(path, error);
  if (error) return ErrnoError("mkdir -p", path, error.value());
  return absl::OkStatus();
}

std::string CpuHeader(int cpus, int indent) {
  std::string header(static_cast<size_t>(indent), ' ');
  for (int cpu = 0; cpu < cpus; ++cpu) absl::StrAppendFormat(&header, "CPU%-8d", cpu);
  header += '\n';
  return header;
}

constexpr const char* kSoftirqVectors[] = {"HI",       "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
                                           "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU"};

}  // namespace

std::string AdvanceSnmpCounters(const std::string& text, uint64_t delta) {
  std::string out;
  out.reserve(text.size() + 64);
  size_t line_start = 0;
  bool value_line = false;  // header and value lines alternate, header first
  while (line_start < text.size()) {
    size_t line_end = text.find('\n', line_start);
    if (line_end == std::string::npos) line_end = text.size();
    const std::string_view line(text.data() + line_start, line_end - line_start);
    if (!value_line) {
      out.append(line);
    } else {
      size_t pos = 0;
      while (pos < line.size()) {
        const size_t token_end = std::min(line.find(' ', pos), line.size());
        const std::string_view token = line.substr(pos, token_end - pos);
        uint64_t value = 0;
        bool numeric = !token.empty();
        for (char c : token) {
          if (c < '0' || c > '9') {
            numeric = false;
            break;
          }
          value = value * 10 + static_cast<uint64_t>(c - '0');
        }
        if (numeric) {
          absl::StrAppend(&out, value + delta);
        } else {
          out.append(token);
        }
        if (token_end < line.size()) out += ' ';
        pos = token_end + 1;
      }
    }
    if (line_end < text.size()) out += '\n';
    value_line = !value_line;
    line_start = line_end + 1;
  }
  return out;
}

absl::StatusOr<SyntheticHost> SyntheticHost::Create(const SyntheticHostShape& shape) {
  if (shape.queues < 1 || shape.cpus < 1) {
    return absl::InvalidArgumentError(absl::StrCat("synthetic host: ", shape.queues, " queues and ",
                                                   shape.cpus, " CPUs: need at least one of each"));
  }
  absl::StatusOr<std::string> snmp = ReadText("/proc/net/snmp");
  if (!snmp.ok()) return snmp.status();
  absl::StatusOr<std::string> netstat = ReadText("/proc/net/netstat");
  if (!netstat.ok()) return netstat.status();
  char pattern[] = "/dev/shm/nictune-synthetic-host-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) return ErrnoError("mkdtemp", pattern, errno);
  auto tree = std::make_unique<Tree>();
  tree->path = pattern;
  SyntheticHost host(shape, std::move(tree), *std::move(snmp), *std::move(netstat));
  if (absl::Status written = host.WriteStaticFiles(); !written.ok()) return written;
  if (absl::Status written = host.WriteCounters(); !written.ok()) return written;
  return host;
}

SyntheticHost::Tree::~Tree() {
  std::error_code ignored;  // nothing useful to do about a directory that will not go
  fs::remove_all(path, ignored);
}

absl::Status SyntheticHost::Advance() {
  ++tick_;
  return WriteCounters();
}

absl::Status SyntheticHost::WriteStaticFiles() const {
  const std::string proc = proc_root();
  const std::string device = absl::StrCat(sys_root(), "/class/net/", shape_.device);
  for (const std::string& directory :
       {proc + "/net", proc + "/sys/net/core", proc + "/sys/net/ipv4", device + "/statistics"}) {
    if (absl::Status made = MakeDirectories(directory); !made.ok()) return made;
  }
  const std::pair<const char*, const char*> knobs[] = {
      {"core/netdev_budget", "300"},    {"core/netdev_budget_usecs", "2000"},
      {"core/dev_weight", "64"},        {"core/dev_weight_rx_bias", "1"},
      {"core/dev_weight_tx_bias", "1"}, {"core/rmem_default", "212992"},
      {"core/rmem_max", "212992"},      {"ipv4/udp_rmem_min", "4096"}};
  for (const auto& [name, value] : knobs) {
    const std::string path = absl::StrCat(proc, "/sys/net/", name);
    if (absl::Status written = WriteText(path, absl::StrCat(value, "\n")); !written.ok()) {
      return written;
    }
  }
  const std::pair<std::string, std::string> device_files[] = {
      {"ifindex", absl::StrCat(shape_.ifindex, "\n")},
      {"napi_defer_hard_irqs", "0\n"},
      {"gro_flush_timeout", "0\n"}};
  for (const auto& [name, value] : device_files) {
    if (absl::Status written = WriteText(device + "/" + name, value); !written.ok()) return written;
  }
  for (int q = 0; q < shape_.queues; ++q) {
    for (const char* kind : {"rx", "tx"}) {
      if (absl::Status made = MakeDirectories(absl::StrCat(device, "/queues/", kind, "-", q));
          !made.ok()) {
        return made;
      }
    }
    const std::string irq =
        absl::StrCat(proc, "/irq/", shape_.first_queue_irq + static_cast<uint32_t>(q));
    if (absl::Status made = MakeDirectories(irq); !made.ok()) return made;
    const std::string cpu = absl::StrCat(QueueCpu(q), "\n");
    for (const char* name : {"/smp_affinity_list", "/effective_affinity_list"}) {
      if (absl::Status written = WriteText(irq + name, cpu); !written.ok()) return written;
    }
  }
  return absl::OkStatus();
}

absl::Status SyntheticHost::WriteCounters() const {
  const std::string proc = proc_root();
  const uint64_t delta = tick_ * 100;
  const std::pair<std::string, std::string> files[] = {
      {proc + "/interrupts", Interrupts()},
      {proc + "/softirqs", Softirqs()},
      {proc + "/net/softnet_stat", SoftnetStat()},
      {proc + "/stat", Stat()},
      {proc + "/net/snmp", AdvanceSnmpCounters(snmp_template_, delta)},
      {proc + "/net/netstat", AdvanceSnmpCounters(netstat_template_, delta)}};
  for (const auto& [path, text] : files) {
    if (absl::Status written = WriteText(path, text); !written.ok()) return written;
  }
  const std::string statistics =
      absl::StrCat(sys_root(), "/class/net/", shape_.device, "/statistics/");
  const uint64_t packets = tick_ * 10'000 * static_cast<uint64_t>(shape_.queues);
  // Every device has these files; rx_packets and tx_packets move, the rest stay 0 as they do on
  // a healthy NIC.
  for (const std::string_view counter : driver::kLinkStatisticNames) {
    uint64_t value = 0;
    if (counter == "rx_packets" || counter == "tx_packets") value = packets;
    if (counter == "rx_bytes" || counter == "tx_bytes") value = packets * 1400;
    if (absl::Status written =
            WriteText(statistics + std::string(counter), absl::StrCat(value, "\n"));
        !written.ok()) {
      return written;
    }
  }
  return absl::OkStatus();
}

std::string SyntheticHost::Interrupts() const {
  const int cpus = shape_.cpus;
  std::string text = CpuHeader(cpus, 11);
  auto row = [&](std::string_view id, auto count_on_cpu, std::string_view description) {
    absl::StrAppendFormat(&text, "%4s:", std::string(id));
    for (int cpu = 0; cpu < cpus; ++cpu) absl::StrAppendFormat(&text, " %10u", count_on_cpu(cpu));
    absl::StrAppend(&text, "  ", std::string(description), "\n");
  };
  // Timers, serial, disk and the like: they tick but serve no queue.
  for (uint32_t irq = 1; irq <= shape_.other_irqs; ++irq) {
    row(
        absl::StrCat(irq), [&](int cpu) { return tick_ * irq + static_cast<uint64_t>(cpu); },
        absl::StrCat("IO-APIC   ", irq, "-edge      misc", irq));
  }
  for (int q = 0; q < shape_.queues; ++q) {
    const int queue_cpu = QueueCpu(q);
    row(
        absl::StrCat(shape_.first_queue_irq + static_cast<uint32_t>(q)),
        [&](int cpu) {
          return cpu == queue_cpu ? tick_ * 1000 + static_cast<uint64_t>(q) : uint64_t{0};
        },
        absl::StrCat("PCI-MSIX-0000:00:03.0   ", q + 1, "-edge      ", shape_.device, "-TxRx-", q));
  }
  for (const auto& [id, name] :
       {std::pair{"NMI", "Non-maskable interrupts"}, std::pair{"LOC", "Local timer interrupts"},
        std::pair{"RES", "Rescheduling interrupts"}, std::pair{"CAL", "Function call interrupts"},
        std::pair{"TLB", "TLB shootdowns"}}) {
    row(
        id, [&](int cpu) { return tick_ * 250 + static_cast<uint64_t>(cpu); }, name);
  }
  text += " ERR:          0\n MIS:          0\n";
  return text;
}

std::string SyntheticHost::Softirqs() const {
  std::string text = CpuHeader(shape_.cpus, 20);
  uint64_t rate = 100;
  for (const char* vector : kSoftirqVectors) {
    absl::StrAppendFormat(&text, "%12s:", vector);
    for (int cpu = 0; cpu < shape_.cpus; ++cpu) {
      absl::StrAppendFormat(&text, " %10u", tick_ * rate + static_cast<uint64_t>(cpu));
    }
    text += '\n';
    rate += 50;
  }
  return text;
}

std::string SyntheticHost::SoftnetStat() const {
  // 6.18's 15 columns: processed, dropped, time_squeeze, 0 x 5, cpu_collision, received_rps,
  // flow_limit_count, backlog_len, index, input_qlen, process_qlen. The counters wrap at 32 bits.
  std::string text;
  for (int cpu = 0; cpu < shape_.cpus; ++cpu) {
    const auto processed = static_cast<uint32_t>(tick_ * 20'000);
    const auto squeezed = static_cast<uint32_t>(tick_ * 3);
    absl::StrAppendFormat(&text,
                          "%08x %08x %08x 00000000 00000000 00000000 00000000 00000000 00000000 "
                          "00000000 00000000 00000000 %08x 00000000 00000000\n",
                          processed, 0u, squeezed, static_cast<uint32_t>(cpu));
  }
  return text;
}

std::string SyntheticHost::Stat() const {
  // 100 ticks per second per CPU: 10 user, 5 system, 1 irq, 4 softirq, 80 idle.
  const uint64_t t = tick_;
  const auto cpu_line = [t](std::string_view label, uint64_t cpus) {
    return absl::StrFormat("%s %u 0 %u %u 0 %u %u 0 0 0\n", std::string(label), 10 * t * cpus,
                           5 * t * cpus, 80 * t * cpus, t * cpus, 4 * t * cpus);
  };
  std::string text = cpu_line("cpu ", static_cast<uint64_t>(shape_.cpus));
  for (int cpu = 0; cpu < shape_.cpus; ++cpu) text += cpu_line(absl::StrCat("cpu", cpu), 1);
  absl::StrAppendFormat(&text,
                        "intr %u 0 0 0\nctxt %u\nbtime 1795981127\nprocesses 7369\n"
                        "procs_running 1\nprocs_blocked 0\nsoftirq %u 0 0 0 0 0 0 0 0 0 0\n",
                        t * 1000 * static_cast<uint64_t>(shape_.queues), t * 5000, t * 4000);
  return text;
}

}  // namespace nictune::testing_support
