// SPDX-License-Identifier: Apache-2.0
#include "agent/check/support_report.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace nictune::check {
namespace {

std::string Word(Support support) {
  switch (support) {
    case Support::kOk:
      return "ok";
    case Support::kLimited:
      return "limited";
    case Support::kCannot:
      return "cannot";
  }
  return "?";
}

// A capability missing limits what needs it; whether it stops the probes shows in their lines.
void AddCapabilities(const SupportFacts& facts, std::vector<SupportItem>& out) {
  for (const HeldCapability& capability : facts.capabilities) {
    if (capability.held.ok()) {
      out.push_back({Support::kOk, capability.name, "held"});
    } else {
      out.push_back({Support::kLimited, capability.name, std::string(capability.held.message())});
    }
  }
}

void AddTracefs(const SupportFacts& facts, std::vector<SupportItem>& out) {
  if (facts.tracefs.ok()) {
    out.push_back({Support::kOk, "tracefs", absl::StrCat("mounted at ", *facts.tracefs)});
  } else {
    out.push_back({Support::kLimited, "tracefs", std::string(facts.tracefs.status().message())});
  }
}

void AddProbes(const SupportFacts& facts, std::vector<SupportItem>& out) {
  if (!facts.probes_unavailable.empty()) {
    out.push_back({Support::kLimited, "BPF probes",
                   absl::StrCat("not loaded (", facts.probes_unavailable,
                                "): figures from procfs and sysfs only, without NAPI polls, "
                                "softirq and irq handler time, drop reasons or socket fill")});
    return;
  }
  const size_t attached =
      static_cast<size_t>(std::count_if(facts.probes.begin(), facts.probes.end(),
                                        [](const driver::ProbeStatus& p) { return p.attached; }));
  out.push_back({attached == facts.probes.size() ? Support::kOk : Support::kLimited, "BPF probes",
                 absl::StrCat(attached, " of ", facts.probes.size(), " programs attached")});
  for (const driver::ProbeStatus& probe : facts.probes) {
    if (probe.attached) continue;
    out.push_back({Support::kLimited, absl::StrCat("BPF ", probe.name), probe.reason});
  }
}

void AddSources(const SupportFacts& facts, std::vector<SupportItem>& out) {
  if (!facts.window.ok()) {
    out.push_back({Support::kCannot, "sources",
                   absl::StrCat("no window could be measured: ", facts.window.message())});
    return;
  }
  bool any = !facts.probes.empty();
  for (const model::SourceState& source : facts.sources) {
    if (source.name == "bpf") continue;  // the probes' own lines say it
    any |= source.in_use;
    out.push_back({source.in_use ? Support::kOk : Support::kLimited, source.name,
                   source.detail.empty() ? "read" : source.detail});
  }
  if (!any) {
    out.push_back(
        {Support::kCannot, "sources", "nothing readable: no procfs or sysfs source and no probes"});
  }
}

void AddOtherTuners(const SupportFacts& facts, std::vector<SupportItem>& out) {
  if (!facts.other_tuners.ok()) {
    out.push_back({Support::kLimited, "other tuners",
                   absl::StrCat("not looked for: ", facts.other_tuners.status().message())});
    return;
  }
  if (facts.other_tuners->empty()) {
    out.push_back({Support::kOk, "other tuners", "none running (tuned, bpftune, irqbalance)"});
    return;
  }
  for (const observe::OtherTuner& tuner : *facts.other_tuners) {
    out.push_back({Support::kLimited, absl::StrCat("other tuner ", tuner.name),
                   absl::StrCat("pid ", tuner.pid, ": ", tuner.overlap,
                                " (docs/deployment.md \"Other tuners\")")});
  }
}

void AddStateDir(const SupportFacts& facts, std::vector<SupportItem>& out) {
  if (facts.state_dir.ok()) {
    out.push_back({Support::kOk, "state directory",
                   "writable: the change journal and the history can be kept"});
    return;
  }
  // Apply mode journals every original before writing: without the journal it refuses to start.
  out.push_back({facts.apply ? Support::kCannot : Support::kLimited, "state directory",
                 absl::StrCat(facts.state_dir.message(),
                              facts.apply ? ": apply mode refuses to start without its journal"
                                          : ": runs without history")});
}

void AddApply(const SupportFacts& facts, std::vector<SupportItem>& out) {
  if (!facts.apply) return;
  if (facts.sysctls_writable.ok()) {
    out.push_back({Support::kOk, "apply: sysctls", "the network sysctls are writable"});
  } else {
    out.push_back(
        {Support::kCannot, "apply: sysctls", std::string(facts.sysctls_writable.message())});
  }
  // A start runs without it: only the device settings' writes fail, each said as it fails.
  if (facts.device_knobs_writable.ok()) {
    out.push_back({Support::kOk, "apply: device settings",
                   "CAP_NET_ADMIN held (whether a driver takes a setting shows at its write)"});
  } else {
    out.push_back({Support::kLimited, "apply: device settings",
                   std::string(facts.device_knobs_writable.message())});
  }
}

}  // namespace

std::vector<SupportItem> SupportReport(const SupportFacts& facts) {
  std::vector<SupportItem> out;
  if (facts.kernel.empty()) {
    out.push_back({Support::kLimited, "kernel", "unknown: uname failed"});
  } else {
    out.push_back({Support::kOk, "kernel", facts.kernel});
  }
  if (facts.btf.ok()) {
    out.push_back({Support::kOk, "BTF", "the kernel's types are there for the probes"});
  } else {
    out.push_back({Support::kLimited, "BTF", std::string(facts.btf.message())});
  }
  AddCapabilities(facts, out);
  AddTracefs(facts, out);
  AddProbes(facts, out);
  AddSources(facts, out);
  AddOtherTuners(facts, out);
  AddStateDir(facts, out);
  AddApply(facts, out);
  return out;
}

std::string FormatSupportReport(const std::vector<SupportItem>& items) {
  size_t width = 0;
  for (const SupportItem& item : items) width = std::max(width, item.what.size());
  std::string text;
  for (const SupportItem& item : items) {
    absl::StrAppend(&text, Word(item.support), std::string(8 - Word(item.support).size(), ' '),
                    item.what, std::string(width - item.what.size() + 2, ' '), item.detail, "\n");
  }
  const auto count = [&items](Support support) {
    return std::count_if(items.begin(), items.end(),
                         [support](const SupportItem& i) { return i.support == support; });
  };
  if (count(Support::kCannot) > 0) {
    absl::StrAppend(&text, "nictuned cannot run as asked here: ", count(Support::kCannot),
                    " item(s) say why.\n");
  } else if (count(Support::kLimited) > 0) {
    absl::StrAppend(&text, "nictuned runs here, with less: ", count(Support::kLimited),
                    " item(s) limited.\n");
  } else {
    absl::StrAppend(&text, "nictuned runs here as asked, with everything it measures.\n");
  }
  return text;
}

int SupportExitCode(const std::vector<SupportItem>& items) {
  return std::any_of(items.begin(), items.end(),
                     [](const SupportItem& i) { return i.support == Support::kCannot; })
             ? 1
             : 0;
}

}  // namespace nictune::check
