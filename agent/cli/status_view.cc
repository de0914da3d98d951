// SPDX-License-Identifier: Apache-2.0
#include "agent/cli/status_view.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/cli/duration_text.h"
#include "agent/cli/json_text.h"
#include "agent/cli/text_table.h"
#include "agent/cli/time_text.h"

namespace nictune::cli {
namespace {

std::string Seconds(std::optional<double> seconds) {
  return seconds ? DurationText(*seconds) : "-";
}

std::string BpfLine(const nlohmann::json& bpf) {
  if (!bpf.is_object()) return "BPF: -\n";
  if (!bpf.value("in_use", false)) {
    return absl::StrCat("BPF: not in use (", TextAt(bpf, "why_not"), "); procfs/sysfs only\n");
  }
  std::vector<std::string> attached;
  std::vector<std::string> waiting;
  std::vector<std::string> failed;
  for (const nlohmann::json& p : bpf.value("programs", nlohmann::json::array())) {
    if (p.value("attached", false)) {
      attached.push_back(absl::StrCat(TextAt(p, "name"), " (", TextAt(p, "attach_type"), ")"));
    } else if (p.value("waiting", false)) {
      waiting.push_back(TextAt(p, "name"));
    } else {
      failed.push_back(absl::StrCat(TextAt(p, "name"), ": ", TextAt(p, "reason")));
    }
  }
  std::string out = absl::StrCat("BPF: ", attached.size(),
                                 " programs attached: ", absl::StrJoin(attached, ", "), "\n");
  if (!waiting.empty()) {
    absl::StrAppend(&out, "BPF on demand: ", absl::StrJoin(waiting, ", "),
                    " (per-packet probes, attached while a socket is under pressure)\n");
  }
  for (const std::string& f : failed) absl::StrAppend(&out, "BPF not attached: ", f, "\n");
  return out;
}

// Values another hand set since the agent started (a person, tuned, bpftune), newest last.
std::string KnobChangesLines(const nlohmann::json& changes) {
  if (!changes.is_object() || changes.value("total", 0) == 0) return "";
  std::string out = absl::StrCat(
      "knobs changed by another hand than nictune's: ", TextAt(changes, "total"), " since start\n");
  for (const nlohmann::json& c : changes.value("latest", nlohmann::json::array())) {
    absl::StrAppend(&out, "  ", TextAt(c, "knob"), " on ", TextAt(c, "target"), ": ",
                    TextAt(c, "from"), " -> ", TextAt(c, "to"), ", read ",
                    AgentTimeText(TextAt(c, "seen")), "\n");
  }
  return out;
}

// Apply mode's changes the controller holds back (too little gain or confidence, a reversal or
// an ineffective step's direction inside the cooldown): each with its reason and since when.
std::string HeldLines(const nlohmann::json& held) {
  if (!held.is_array() || held.empty()) return "";
  std::string out = absl::StrCat("changes held back: ", held.size(), "\n");
  for (const nlohmann::json& h : held) {
    absl::StrAppend(&out, "  ", TextAt(h, "reason"), " (since ", AgentTimeText(TextAt(h, "since")),
                    ")\n");
  }
  return out;
}

}  // namespace

std::string RenderStatus(const nlohmann::json& status, size_t width) {
  std::string out = absl::StrCat(
      "nictuned ", TextAt(status, "version"), ", mode ", TextAt(status, "mode"), ", up ",
      Seconds(NumberAt(status, "uptime_s")), ", on exit ", TextAt(status, "on_exit"),
      "\nsampling every ", Seconds(NumberAt(status, "interval_s")), ", tuner window ",
      Seconds(NumberAt(status, "window_s")), "\n");
  if (const std::string note = TextAt(status, "mode_note"); !note.empty()) {
    absl::StrAppend(&out, "note: ", note, "\n");
  }
  const nlohmann::json sampling = status.value("sampling", nlohmann::json::object());
  absl::StrAppend(&out, "sampling: ", TextAt(sampling, "samples"), " samples (",
                  TextAt(sampling, "failed_samples"), " failed), ", TextAt(sampling, "windows"),
                  " windows, missed intervals ", TextAt(sampling, "missed_intervals"),
                  ", last sample ", AgentTimeText(TextAt(sampling, "last_sample")), " (took ",
                  Seconds(NumberAt(sampling, "last_sampling_seconds")), ")\n");
  if (const std::string error = TextAt(sampling, "last_error"); !error.empty()) {
    absl::StrAppend(&out, "sampling last error: ", error, "\n");
  }
  const nlohmann::json store = status.value("store", nlohmann::json::object());
  if (!store.value("configured", false)) {
    absl::StrAppend(&out, "store: none\n");
  } else {
    absl::StrAppend(&out, "store: ", TextAt(store, "path"), ": ",
                    store.value("healthy", false) ? "healthy" : "UNHEALTHY", ", ",
                    TextAt(store, "errors"), " errors\n");
    if (const std::string error = TextAt(store, "last_error"); !error.empty()) {
      absl::StrAppend(&out, "store last error (", AgentTimeText(TextAt(store, "last_error_time")),
                      "): ", error, "\n");
    }
  }
  absl::StrAppend(&out, BpfLine(status.value("bpf", nlohmann::json())));
  if (const std::string why = TextAt(status, "other_tuners_unknown"); !why.empty()) {
    absl::StrAppend(&out, "other tuners (tuned, bpftune, irqbalance): not looked for: ", why, "\n");
  }
  for (const nlohmann::json& t : status.value("other_tuners", nlohmann::json::array())) {
    absl::StrAppend(&out, "another tuner is running: ", TextAt(t, "name"), " (pid ",
                    TextAt(t, "pid"), "): ", TextAt(t, "overlap"), "\n");
  }
  absl::StrAppend(&out,
                  KnobChangesLines(status.value("knobs_changed_by_others", nlohmann::json())));
  absl::StrAppend(&out, HeldLines(status.value("held", nlohmann::json())));

  TextTable sources({{"SOURCE"}, {"KIND"}, {"IN USE"}, {"DETAIL"}});
  for (const nlohmann::json& s : status.value("sources", nlohmann::json::array())) {
    sources.AddRow(
        {TextAt(s, "name"), TextAt(s, "kind"), TextAt(s, "in_use"), TextAt(s, "detail")});
  }
  absl::StrAppend(&out, "\n", sources.Render(width));
  return out;
}

}  // namespace nictune::cli
