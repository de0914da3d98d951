// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/top_view.h"

#include <map>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "agent/cli/json_text.h"
#include "agent/cli/text_table.h"

namespace nictune::cli {
namespace {

using Json = nlohmann::json;

const Json& ArrayAt(const Json& j, const char* key) {
  static const Json kEmpty = Json::array();
  if (!j.is_object()) return kEmpty;
  const auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

// Whether the drops hook saw the whole interval: then a device with no drop record dropped
// nothing, where otherwise nothing is known of it (a slot of a few percent seeing none says
// little).
bool DropsHookSawTheInterval(const Json& snapshot) {
  for (const Json& p : ArrayAt(snapshot, "probes")) {
    if (TextAt(p, "hook") == "drops") return NumberAt(p, "coverage").value_or(0) >= 1;
  }
  return false;
}

// Drops per second per device: the agent's (the BPF drop records, and the kernel's count of the
// drops of the sockets it placed on the device) when it has them, else the device's own
// rx_dropped counter (sysfs); an emulated NIC's missed frames (its ring overran) besides.
std::map<std::string, double> DropsPerDevice(const Json& snapshot) {
  std::map<std::string, double> drops;
  for (const Json& d : ArrayAt(snapshot, "device_drops")) {
    if (const std::optional<double> per_s = NumberAt(d, "per_s")) {
      drops[TextAt(d, "device")] += *per_s;
    }
  }
  for (const Json& device : ArrayAt(snapshot, "devices")) {
    const std::string name = TextAt(device, "name");
    if (drops.contains(name) || !device.contains("per_s")) continue;
    if (const std::optional<double> dropped = NumberAt(device["per_s"], "rx_dropped")) {
      drops[name] = *dropped;
    }
  }
  const bool measured = DropsHookSawTheInterval(snapshot);
  for (const Json& nic : ArrayAt(snapshot, "emulated_nics")) {
    const std::optional<double> missed = NumberAt(nic, "missed_per_s");
    const std::string name = TextAt(nic, "device");
    if (missed && (measured || drops.contains(name))) drops[name] += *missed;
  }
  if (measured) {
    for (const Json& q : ArrayAt(snapshot, "queues")) drops.try_emplace(TextAt(q, "device"), 0);
  }
  return drops;
}

// Whether the probes counted any of the socket's interval: where their slots saw none of it, a
// count of 0 (enqueues, full-queue events, a peak fill) says nothing, and shows as "-".
bool ProbesSawSocket(const Json& socket) {
  const auto coverage = socket.find("coverage");
  return coverage == socket.end() || NumberAt(*coverage, "share").value_or(1) > 0;
}

// A socket's drops by the kernel's own count (sock_diag), whatever the probes saw.
std::string KernelDropsPerS(const Json& socket, std::optional<double> seconds) {
  const std::optional<double> drops = NumberAt(socket, "kernel_drops");
  if (!drops || !seconds || *seconds <= 0) return "-";
  return FormatNumber(*drops / *seconds, 3);
}

struct CpuSplit {
  std::optional<double> hardirq, softirq, user, idle;
};

// The mean split over `cpus` (the CPUs a queue's interrupt is delivered to).
CpuSplit MeanSplit(const Json& snapshot, const Json& cpus) {
  std::map<int64_t, const Json*> by_cpu;
  for (const Json& c : ArrayAt(snapshot, "cpus")) {
    if (c.contains("cpu") && c["cpu"].is_number_integer() && c.contains("split")) {
      by_cpu[c["cpu"].get<int64_t>()] = &c["split"];
    }
  }
  double hardirq = 0, softirq = 0, user = 0, idle = 0;
  int n = 0;
  if (cpus.is_array()) {
    for (const Json& cpu : cpus) {
      if (!cpu.is_number_integer()) continue;
      const auto it = by_cpu.find(cpu.get<int64_t>());
      if (it == by_cpu.end()) continue;
      hardirq += NumberAt(*it->second, "hardirq").value_or(0);
      softirq += NumberAt(*it->second, "softirq").value_or(0);
      user += NumberAt(*it->second, "user").value_or(0);
      idle += NumberAt(*it->second, "idle").value_or(0);
      ++n;
    }
  }
  if (n == 0) return {};
  return {hardirq / n, softirq / n, user / n, idle / n};
}

std::string CpuList(const Json& cpus) {
  if (!cpus.is_array() || cpus.empty()) return "-";
  std::vector<std::string> out;
  for (const Json& c : cpus) out.push_back(c.is_number() ? FormatNumber(c.get<double>()) : "?");
  return absl::StrJoin(out, ",");
}

std::string RxTxShare(std::optional<double> rx_share) {
  if (!rx_share) return "-";
  return absl::StrFormat("%.0f/%.0f", *rx_share * 100, (1 - *rx_share) * 100);
}

std::string Header(const Json& snapshot) {
  const std::optional<double> end_ns = NumberAt(snapshot, "end_unix_ns");
  const std::string end =
      end_ns ? absl::FormatTime("%H:%M:%S", absl::FromUnixNanos(static_cast<int64_t>(*end_ns)),
                                absl::UTCTimeZone())
             : "-";
  return absl::StrCat("interval of ", NumberOrDash(NumberAt(snapshot, "seconds"), 3), " s ending ",
                      end, " UTC\n");
}

// The probes' cost and reach, so that the figures above can be weighed: what the probe budget's
// plan costs of one CPU against the budget, then the hooks that saw the whole interval, part of it
// (slotted or gated: the share it saw) and none of it (with the mode that kept it out).
std::string ProbesLine(const Json& snapshot) {
  const Json& probes = ArrayAt(snapshot, "probes");
  if (probes.empty()) return "";
  // Two significant digits: a probe's share is often a few hundredths of a percent.
  const auto percent = [](std::optional<double> fraction) {
    return fraction ? absl::StrCat(FormatNumber(*fraction * 100, 2), "%") : std::string("-");
  };
  // By the share each saw, whatever its mode at the end: a per-packet hook switched on or off
  // during the interval saw part of it.
  std::vector<std::string> whole;
  std::vector<std::string> part;
  std::vector<std::string> none;
  for (const Json& p : probes) {
    const double coverage = NumberAt(p, "coverage").value_or(0);
    const std::string mode = TextAt(p, "mode");
    const std::string why = mode == "slotted" || mode == "gated" || mode == "detached"
                                ? absl::StrCat(" (", mode, ")")
                                : std::string();
    if (coverage >= 1) {
      whole.push_back(TextAt(p, "hook"));
    } else if (coverage <= 0) {
      none.push_back(absl::StrCat(TextAt(p, "hook"), why));
    } else {
      part.push_back(absl::StrCat(TextAt(p, "hook"), " ", percent(coverage), why));
    }
  }
  std::string out = "probes: ";
  const auto budget = snapshot.find("probe_budget");
  if (budget != snapshot.end() && budget->is_object()) {
    const double limit = NumberAt(*budget, "cpu_share").value_or(0);
    absl::StrAppend(
        &out, percent(NumberAt(*budget, "planned_cpu_share")), " of a CPU planned, budget ",
        limit > 0 ? percent(limit) : "unlimited",
        budget->value("over_budget", false) ? " (over it: even the shortest slots cost more)" : "",
        "; ");
  }
  std::vector<std::string> reach;
  if (!whole.empty()) reach.push_back(absl::StrCat("whole interval: ", absl::StrJoin(whole, ", ")));
  if (!part.empty()) reach.push_back(absl::StrCat("part of it: ", absl::StrJoin(part, ", ")));
  if (!none.empty()) reach.push_back(absl::StrCat("none of it: ", absl::StrJoin(none, ", ")));
  return absl::StrCat(out, absl::StrJoin(reach, "; "), "\n");
}

}  // namespace

std::string RenderTop(const Json& snapshot, size_t width) {
  const std::map<std::string, double> drops = DropsPerDevice(snapshot);
  // A row is named by its device, queue number and kind (a queue's rx and tx rows share the
  // number): a table split for a narrow terminal repeats all three.
  TextTable queues({{"DEVICE"},
                    {"QUEUE", Align::kRight},
                    {"KIND"},
                    {"IRQ", Align::kRight},
                    {"CPU"},
                    {"INTS/S", Align::kRight},
                    {"PKTS/POLL", Align::kRight},
                    {"BUDGET%", Align::kRight},
                    {"RX/TX%", Align::kRight},
                    {"DROPS/S", Align::kRight},
                    {"HIRQ%", Align::kRight},
                    {"SIRQ%", Align::kRight},
                    {"POLLER%", Align::kRight},
                    {"USER%", Align::kRight},
                    {"IDLE%", Align::kRight}},
                   /*key_columns=*/3);
  for (const Json& q : ArrayAt(snapshot, "queues")) {
    const std::string device = TextAt(q, "device");
    const auto dropped = drops.find(device);
    const CpuSplit split =
        MeanSplit(snapshot, q.is_object() && q.contains("cpus") ? q["cpus"] : Json());
    queues.AddRow(
        {device, TextAt(q, "queue"), TextAt(q, "kind"), NumberOrDash(NumberAt(q, "irq")),
         CpuList(q.is_object() && q.contains("cpus") ? q["cpus"] : Json()),
         NumberOrDash(NumberAt(q, "interrupts_per_s"), 3),
         NumberOrDash(NumberAt(q, "packets_per_poll"), 3),
         Percent(NumberAt(q, "budget_exhausted_fraction")), RxTxShare(NumberAt(q, "rx_share")),
         dropped == drops.end() ? "-" : FormatNumber(dropped->second, 3), Percent(split.hardirq),
         Percent(split.softirq), Percent(NumberAt(q, "napi_poller_share")), Percent(split.user),
         Percent(split.idle)});
  }
  std::string out = Header(snapshot) + ProbesLine(snapshot);
  if (queues.rows() == 0) {
    absl::StrAppend(&out, "no NIC queues mapped (see `nictune status` for the queue map source)\n");
  } else {
    absl::StrAppend(&out, queues.Render(width));
  }

  TextTable sockets({{"SOCKET"},
                     {"PORT", Align::kRight},
                     {"PROTO", Align::kRight},
                     {"DEVICE"},
                     {"RCVBUF", Align::kRight},
                     {"FILL%", Align::kRight},
                     {"ENQ/S", Align::kRight},
                     {"DROPS/S", Align::kRight},
                     {"TRUESIZE", Align::kRight},
                     {"QUEUE_FULL", Align::kRight},
                     {"UDP_FAIL", Align::kRight}});
  const std::optional<double> seconds = NumberAt(snapshot, "seconds");
  for (const Json& s : ArrayAt(snapshot, "sockets")) {
    const bool counted = ProbesSawSocket(s);
    const auto probed = [counted](std::string cell) { return counted ? cell : "-"; };
    sockets.AddRow({TextAt(s, "cookie"), TextAt(s, "local_port"), TextAt(s, "protocol"),
                    s.contains("device") ? TextAt(s, "device") : "-", TextAt(s, "rcvbuf"),
                    probed(Percent(NumberAt(s, "peak_fill"))),
                    probed(NumberOrDash(NumberAt(s, "enqueues_per_s"), 3)),
                    KernelDropsPerS(s, seconds), NumberOrDash(NumberAt(s, "mean_truesize"), 4),
                    probed(TextAt(s, "rcvqueue_full")), probed(TextAt(s, "udp_queue_failures"))});
  }
  if (sockets.rows() > 0) {
    absl::StrAppend(&out,
                    "\nsockets this interval (DROPS/S: the kernel's count; FILL%, the peak fill "
                    "of the receive buffer, and the counts: the probes', \"-\" where they saw "
                    "none of it)\n",
                    sockets.Render(width));
  } else {
    // The agent lists a socket that dropped, or that the census or the probes saw half full.
    absl::StrAppend(&out, "\nno socket dropped or filled half its receive buffer this interval\n");
  }
  return out;
}

}  // namespace nictune::cli
