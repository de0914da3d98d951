// SPDX-License-Identifier: Apache-2.0
#include "agent/check/support_report.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/cli/text_table.h"
#include "tuner/knob.h"

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

// Present or not whatever the probes' privileges: a missing one is a probe no start can attach.
void AddTracepoints(const SupportFacts& facts, std::vector<SupportItem>& out) {
  if (!facts.tracepoints.ok()) {
    out.push_back({Support::kLimited, "tracepoints",
                   absl::StrCat("not looked for: ", facts.tracepoints.status().message())});
    return;
  }
  std::vector<std::string> missing;
  std::vector<std::string> partly;  // missing, and the probe runs without what it gives
  for (const TracepointPresence& t : *facts.tracepoints) {
    if (t.present) continue;
    if (t.without_it.empty()) {
      missing.push_back(absl::StrCat(t.name, " (", t.concern, ")"));
    } else {
      partly.push_back(absl::StrCat(t.name, " (", t.concern, " runs without ", t.without_it, ")"));
    }
  }
  const size_t all = facts.tracepoints->size();
  if (missing.empty() && partly.empty()) {
    out.push_back({Support::kOk, "tracepoints",
                   absl::StrCat("the ", all, " the probes attach to are all there")});
    return;
  }
  std::string detail = absl::StrCat(all - missing.size() - partly.size(), " of ", all);
  if (!missing.empty()) {
    absl::StrAppend(&detail,
                    "; missing, so the probe named cannot attach: ", absl::StrJoin(missing, ", "));
  }
  if (!partly.empty()) absl::StrAppend(&detail, "; missing: ", absl::StrJoin(partly, ", "));
  out.push_back({Support::kLimited, "tracepoints", detail});
}

std::string ProbeDetail(const driver::ProbeStatus& probe) {
  return absl::StrCat("attached (", probe.attach_type, ")",
                      probe.per_packet ? ", on demand: runs while a socket is under pressure" : "");
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
  // --check attaches every program to prove it can; the running agent keeps the per-packet ones
  // detached until a socket is under pressure, so status lists those as on demand.
  const size_t per_packet =
      static_cast<size_t>(std::count_if(facts.probes.begin(), facts.probes.end(),
                                        [](const driver::ProbeStatus& p) { return p.per_packet; }));
  std::string detail = absl::StrCat(attached, " of ", facts.probes.size(), " programs attached");
  if (per_packet > 0) {
    absl::StrAppend(&detail, " (", per_packet, " on demand)");
  }
  out.push_back({attached == facts.probes.size() ? Support::kOk : Support::kLimited, "BPF probes",
                 std::move(detail)});
  for (const driver::ProbeStatus& probe : facts.probes) {
    out.push_back({probe.attached ? Support::kOk : Support::kLimited,
                   absl::StrCat("BPF ", probe.name),
                   probe.attached ? ProbeDetail(probe) : probe.reason});
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

// "read and write: a, b; read only: c (why); not supported: d; unreadable: e (why)", the
// parts that have knobs in them.
std::string KnobReachDetail(const KnobReach& reach) {
  std::vector<std::string> writable, read_only, unsupported, unreadable;
  std::string read_only_why, unreadable_why;
  for (const KnobAccessCheck& check : reach.knobs) {
    const std::string name(tuner::KnobName(check.knob));
    if (check.read.ok() && check.write.ok()) {
      writable.push_back(name);
    } else if (check.read.ok()) {
      read_only.push_back(name);
      if (read_only_why.empty()) read_only_why = std::string(check.write.message());
    } else if (absl::IsUnimplemented(check.read)) {
      unsupported.push_back(name);
    } else {
      unreadable.push_back(name);
      if (unreadable_why.empty()) unreadable_why = std::string(check.read.message());
    }
  }
  std::vector<std::string> parts;
  if (!writable.empty()) parts.push_back("read and write: " + absl::StrJoin(writable, ", "));
  if (!read_only.empty()) {
    parts.push_back(
        absl::StrCat("read only: ", absl::StrJoin(read_only, ", "), " (", read_only_why, ")"));
  }
  if (!unsupported.empty()) parts.push_back("not supported: " + absl::StrJoin(unsupported, ", "));
  if (!unreadable.empty()) {
    parts.push_back(
        absl::StrCat("unreadable: ", absl::StrJoin(unreadable, ", "), " (", unreadable_why, ")"));
  }
  return parts.empty() ? std::string("no knobs to set") : absl::StrJoin(parts, "; ");
}

// A knob that cannot be read limits what the tuner sees; one that cannot be written limits only
// apply mode.
Support KnobReachSupport(const KnobReach& reach, bool apply) {
  for (const KnobAccessCheck& check : reach.knobs) {
    if (!check.read.ok() && !absl::IsUnimplemented(check.read)) return Support::kLimited;
    if (apply && check.read.ok() && !check.write.ok()) return Support::kLimited;
  }
  return Support::kOk;
}

// "knobs on eth0 (virtio_net)", or for devices alike "knobs on veth0, veth1, veth2 and 40 more".
std::string KnobTargets(const std::vector<const KnobReach*>& reaches) {
  constexpr size_t kNamed = 3;
  if (reaches.size() == 1) {
    const KnobReach& only = *reaches.front();
    return absl::StrCat("knobs on ", only.target,
                        only.driver.empty() ? "" : absl::StrCat(" (", only.driver, ")"));
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < reaches.size() && i < kNamed; ++i) names.push_back(reaches[i]->target);
  return absl::StrCat("knobs on ", absl::StrJoin(names, ", "),
                      reaches.size() > kNamed
                          ? absl::StrCat(" and ", reaches.size() - kNamed, " more")
                          : std::string());
}

// One line per target, targets alike in one line, so that a host of a thousand veths stays short.
void AddKnobs(const SupportFacts& facts, std::vector<SupportItem>& out) {
  std::vector<std::pair<std::pair<Support, std::string>, std::vector<const KnobReach*>>> groups;
  for (const KnobReach& reach : facts.knobs) {
    std::pair<Support, std::string> key{KnobReachSupport(reach, facts.apply),
                                        KnobReachDetail(reach)};
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&key](const auto& g) { return g.first == key; });
    if (group == groups.end()) {
      groups.push_back({std::move(key), {}});
      group = groups.end() - 1;
    }
    group->second.push_back(&reach);
  }
  for (const auto& [key, reaches] : groups) {
    out.push_back({key.first, KnobTargets(reaches), key.second});
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

// What a start would serve at --listen or --socket: disabled, free, or another's.
SupportItem EndpointItem(const char* what, const std::string& endpoint, const absl::Status& free,
                         const char* disabled) {
  if (endpoint.empty()) return {Support::kOk, what, disabled};
  if (free.ok()) return {Support::kOk, what, absl::StrCat(endpoint, " is free to serve")};
  return {Support::kCannot, what, std::string(free.message())};
}

// A start stops (exit 1) when another agent holds the state directory or another program the
// address or the socket.
void AddStartHolds(const SupportFacts& facts, std::vector<SupportItem>& out) {
  // Only a holder stops a start; a directory it cannot open is the state directory's line.
  if (absl::IsFailedPrecondition(facts.state_lock)) {
    out.push_back(
        {Support::kCannot, "state directory lock", std::string(facts.state_lock.message())});
  }
  out.push_back(EndpointItem("listen", facts.listen, facts.listen_free,
                             "disabled (--listen=): no /metrics or HTTP API"));
  out.push_back(EndpointItem("CLI socket", facts.socket, facts.socket_free,
                             "disabled (--socket=): the CLI needs --url"));
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
  AddTracepoints(facts, out);
  AddProbes(facts, out);
  AddSources(facts, out);
  AddKnobs(facts, out);
  AddOtherTuners(facts, out);
  AddStateDir(facts, out);
  AddStartHolds(facts, out);
  AddApply(facts, out);
  return out;
}

std::string FormatSupportReport(const std::vector<SupportItem>& items, size_t width) {
  size_t label_width = 0;
  for (const SupportItem& item : items) label_width = std::max(label_width, item.what.size());
  // The verdict's column ("limited" and a space), the gap after the label, and the narrowest a
  // detail wraps to (on a terminal narrower than the columns, a line runs past it rather than
  // break a detail into fragments).
  constexpr size_t kVerdictColumn = 8;
  constexpr size_t kLabelGap = 2;
  constexpr size_t kNarrowestDetail = 30;
  // The details wrap under their own column, as a terminal shows them whole.
  const size_t detail_column = kVerdictColumn + label_width + kLabelGap;
  const size_t detail_width = std::max(kNarrowestDetail, width - std::min(detail_column, width));
  std::string text;
  for (const SupportItem& item : items) {
    absl::StrAppend(&text, Word(item.support),
                    std::string(kVerdictColumn - Word(item.support).size(), ' '), item.what,
                    std::string(label_width - item.what.size() + kLabelGap, ' '));
    const std::vector<std::string> lines = cli::WrapToWidth(item.detail, detail_width);
    for (size_t i = 0; i < lines.size(); ++i) {
      absl::StrAppend(&text, i == 0 ? "" : std::string(detail_column, ' '), lines[i], "\n");
    }
    if (lines.empty()) absl::StrAppend(&text, "\n");
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
