// SPDX-License-Identifier: Apache-2.0
#include "driver/bpf/loaded_probe.h"

#include <bpf/bpf.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "driver/bpf/hook_event_counter.h"
#include "driver/bpf/libbpf_log.h"
#include "driver/errno_text.h"

namespace nictune::driver::bpf {
namespace {

constexpr absl::string_view kBtfSuffix = "_btf";
constexpr absl::string_view kRawSuffix = "_raw";
constexpr size_t kMaxReasonLength = 600;

enum class Flavor { kTpBtf, kRawTp, kUnused };

// "on_napi_poll_btf" -> {"on_napi_poll", kTpBtf}; programs without a twin suffix load as they are.
std::pair<std::string, Flavor> HandlerOf(absl::string_view program_name) {
  absl::string_view base = program_name;
  if (absl::ConsumeSuffix(&base, kBtfSuffix)) return {std::string(base), Flavor::kTpBtf};
  if (absl::ConsumeSuffix(&base, kRawSuffix)) return {std::string(base), Flavor::kRawTp};
  return {std::string(program_name), Flavor::kTpBtf};
}

// "tp_btf/napi_poll" -> "napi_poll"
std::string TracepointOf(const bpf_program* program) {
  absl::string_view section = bpf_program__section_name(program);
  const size_t slash = section.find('/');
  return std::string(slash == absl::string_view::npos ? section : section.substr(slash + 1));
}

// The program libbpf names in its failure messages ("prog 'on_irq_entry_btf': ..."), if any.
std::string FailingProgram(absl::string_view log) {
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    const size_t start = line.find("prog '");
    if (start == absl::string_view::npos) continue;
    if (!absl::StrContains(line, "fail")) continue;
    absl::string_view rest = line.substr(start + 6);
    const size_t end = rest.find('\'');
    if (end != absl::string_view::npos) return std::string(rest.substr(0, end));
  }
  return "";
}

// The lines of the libbpf log that explain why `program` failed, with the verifier's last word.
std::string FailureSummary(absl::string_view log, absl::string_view program) {
  std::vector<std::string> parts;
  std::string last_verifier_line;
  bool in_verifier_log = false;
  for (absl::string_view line : absl::StrSplit(log, '\n', absl::SkipWhitespace())) {
    if (absl::StrContains(line, "-- BEGIN PROG LOAD LOG --")) {
      in_verifier_log = true;
      continue;
    }
    if (absl::StrContains(line, "-- END PROG LOAD LOG --")) {
      in_verifier_log = false;
      continue;
    }
    if (in_verifier_log) {
      if (!absl::StartsWith(line, "processed ") && !absl::StartsWith(line, "verification time"))
        last_verifier_line = std::string(absl::StripAsciiWhitespace(line));
      continue;
    }
    if (program.empty() || absl::StrContains(line, program)) {
      absl::string_view text = absl::StripAsciiWhitespace(line);
      absl::ConsumePrefix(&text, "libbpf: ");
      parts.emplace_back(text);
    }
  }
  if (!last_verifier_line.empty()) parts.push_back(absl::StrCat("verifier: ", last_verifier_line));
  std::string summary = absl::StrJoin(parts, "; ");
  if (summary.size() > kMaxReasonLength) summary = summary.substr(0, kMaxReasonLength) + "...";
  return summary;
}

}  // namespace

absl::Status OpenFailure(absl::string_view concern, int error_number) {
  return absl::InternalError(
      absl::StrCat("open BPF object ", concern, ": ", ErrnoText(error_number)));
}

ObjectOpener SharingMaps(const char* concern, ObjectOpener open, std::vector<SharedMap> maps) {
  return
      [concern, open = std::move(open), maps = std::move(maps)]() -> absl::StatusOr<OpenedObject> {
        absl::StatusOr<OpenedObject> opened = open();
        if (!opened.ok()) return opened;
        for (const SharedMap& shared : maps) {
          absl::StatusOr<int> fd = shared.owner->MapFd(shared.map_name);
          bpf_map* map = bpf_object__find_map_by_name(opened->object, shared.map_name);
          absl::Status failure;
          if (!fd.ok()) {
            failure = absl::FailedPreconditionError(
                absl::StrCat("BPF ", concern, " shares map ", shared.map_name, " with ",
                             shared.owner->status().name, ": ", fd.status().message()));
          } else if (map == nullptr) {
            failure = absl::InternalError(
                absl::StrCat("BPF ", concern, " map ", shared.map_name, ": not in the object"));
          } else if (const int error = bpf_map__reuse_fd(map, *fd); error != 0) {
            failure = absl::InternalError(
                absl::StrCat("BPF ", concern, " reuse map ", shared.map_name, " of ",
                             shared.owner->status().name, ": ", ErrnoText(-error)));
          }
          if (!failure.ok()) {
            opened->destroy();
            return failure;
          }
        }
        return opened;
      };
}

LoadedProbe::LoadedProbe(std::string concern) { status_.name = std::move(concern); }

LoadedProbe::~LoadedProbe() { Detach(); }

void LoadedProbe::DestroyLinks() {
  for (const ProgramLink& attached : links_) bpf_link__destroy(attached.link);
  links_.clear();
}

void LoadedProbe::Detach() {
  DestroyLinks();
  taken_over_.clear();
  if (opened_.destroy) opened_.destroy();
  opened_ = OpenedObject{};
  loaded_ = false;
}

absl::Status LoadedProbe::Pause(absl::string_view why) {
  if (!loaded_) {
    return absl::FailedPreconditionError(
        absl::StrCat("BPF ", status_.name, ": pause: not loaded: ", status_.reason));
  }
  DestroyLinks();
  status_.attached = false;
  status_.reason = std::string(why);
  return absl::OkStatus();
}

absl::Status LoadedProbe::Resume() {
  if (!loaded_) {
    return absl::FailedPreconditionError(
        absl::StrCat("BPF ", status_.name, ": attach: not loaded: ", status_.reason));
  }
  if (status_.attached) return absl::OkStatus();
  bpf_program* program = nullptr;
  bpf_object__for_each_program(program, opened_.object) {
    if (!bpf_program__autoload(program) || taken_over_.contains(program)) continue;
    bpf_link* link = bpf_program__attach(program);
    if (link == nullptr) {
      const int error_number = errno;
      DestroyLinks();
      return absl::InternalError(absl::StrCat(
          "BPF ", status_.name, ": attach ", TracepointOf(program), ": ", ErrnoText(error_number)));
    }
    links_.push_back({program, link});
  }
  status_.attached = true;
  status_.reason = attach_notes_;
  return absl::OkStatus();
}

std::unique_ptr<LoadedProbe> LoadedProbe::Load(std::string concern, const ObjectOpener& open,
                                               const std::vector<std::string>& unused_handlers) {
  std::unique_ptr<LoadedProbe> probe(new LoadedProbe(std::move(concern)));
  ProbeStatus& status = probe->status_;
  std::map<std::string, Flavor> flavors;  // per handler: which twin to load
  std::vector<std::string> notes;         // fallbacks taken, reported even when attached
  for (const std::string& handler : unused_handlers) flavors[handler] = Flavor::kUnused;

  // Each refusal demotes one handler (tp_btf -> raw_tp -> give up), so this terminates.
  for (int attempt = 0; attempt < 64; ++attempt) {
    absl::StatusOr<OpenedObject> opened = open();
    if (!opened.ok()) {
      status.reason = std::string(opened.status().message());
      return probe;
    }
    probe->opened_ = *std::move(opened);
    bpf_object* object = probe->opened_.object;

    bpf_program* program = nullptr;
    bpf_object__for_each_program(program, object) {
      auto [handler, flavor] = HandlerOf(bpf_program__name(program));
      auto [it, inserted] = flavors.emplace(handler, Flavor::kTpBtf);
      bpf_program__set_autoload(program, it->second == flavor);
    }

    if (absl::Status sized = SizeHookEventCounter(object); !sized.ok()) {
      status.reason = std::string(sized.message());
      return probe;
    }
    LibbpfLogCapture log;
    if (const int error = probe->opened_.load(); error != 0) {
      const std::string failing_program = FailingProgram(log.text());
      const std::string why = absl::StrCat("load: ", ErrnoText(-error), ": ",
                                           FailureSummary(log.text(), failing_program));
      probe->Detach();
      const auto [handler, flavor] = HandlerOf(failing_program);
      if (failing_program.empty() || flavor == Flavor::kRawTp || !flavors.contains(handler)) {
        status.reason = absl::StrJoin(notes, "; ");
        if (!status.reason.empty()) status.reason += "; ";
        status.reason += why;
        return probe;
      }
      notes.push_back(absl::StrCat(handler, ": tp_btf refused (", why, "), using raw_tp"));
      flavors[handler] = Flavor::kRawTp;
      continue;
    }

    bool all_attached = true;
    bool any_btf = false;
    bool any_raw = false;
    bpf_object__for_each_program(program, object) {
      if (!bpf_program__autoload(program)) continue;
      const auto [handler, flavor] = HandlerOf(bpf_program__name(program));
      bpf_link* link = bpf_program__attach(program);
      if (link == nullptr) {
        const int error_number = errno;
        const std::string why =
            absl::StrCat("attach ", TracepointOf(program), ": ", ErrnoText(error_number), ": ",
                         FailureSummary(log.text(), ""));
        probe->Detach();
        if (flavor == Flavor::kRawTp) {
          notes.push_back(why);
          status.reason = absl::StrJoin(notes, "; ");
          return probe;
        }
        notes.push_back(absl::StrCat(handler, ": tp_btf refused (", why, "), using raw_tp"));
        flavors[handler] = Flavor::kRawTp;
        all_attached = false;
        break;
      }
      probe->links_.push_back({program, link});
      (flavor == Flavor::kRawTp ? any_raw : any_btf) = true;
    }
    if (!all_attached) continue;

    probe->loaded_ = true;
    status.attached = true;
    status.attach_type = any_raw ? (any_btf ? "tp_btf+raw_tp" : "raw_tp") : "tp_btf";
    status.reason = absl::StrJoin(notes, "; ");
    probe->attach_notes_ = status.reason;
    return probe;
  }
  probe->Detach();
  status.reason =
      absl::StrCat("gave up after repeated load failures: ", absl::StrJoin(notes, "; "));
  return probe;
}

absl::StatusOr<std::vector<HandlerLink>> LoadedProbe::TakeOverHandlers(
    const std::vector<std::string>& handlers) {
  if (!status_.attached) {
    return absl::FailedPreconditionError(
        absl::StrCat("BPF ", status_.name, ": take over handlers: not attached: ", status_.reason));
  }
  std::vector<size_t> indices;
  for (const std::string& handler : handlers) {
    const auto found = std::find_if(links_.begin(), links_.end(), [&](const ProgramLink& l) {
      return HandlerOf(bpf_program__name(l.program)).first == handler;
    });
    if (found == links_.end()) {
      return absl::NotFoundError(absl::StrCat("BPF ", status_.name, ": take over handler ", handler,
                                              ": not an attached program"));
    }
    indices.push_back(static_cast<size_t>(found - links_.begin()));
  }
  std::vector<HandlerLink> taken;
  for (const size_t index : indices) {
    const ProgramLink& attached = links_[index];
    taken.push_back({.tracepoint = TracepointOf(attached.program),
                     .program = attached.program,
                     .link = attached.link});
    taken_over_.insert(attached.program);
  }
  std::erase_if(links_, [this](const ProgramLink& l) { return taken_over_.contains(l.program); });
  return taken;
}

std::vector<std::string> LoadedProbe::AttachedHandlers() const {
  std::vector<std::string> handlers;
  for (const ProgramLink& link : links_) {
    if (link.link != nullptr) handlers.push_back(HandlerOf(bpf_program__name(link.program)).first);
  }
  return handlers;
}

absl::StatusOr<int> LoadedProbe::MapFd(const char* map_name) const {
  if (!loaded_) {
    return absl::FailedPreconditionError(
        absl::StrCat("BPF ", status_.name, " map ", map_name, ": probe is not loaded"));
  }
  const bpf_map* map = bpf_object__find_map_by_name(opened_.object, map_name);
  if (map == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("BPF ", status_.name, " map ", map_name, ": not in the object"));
  }
  return bpf_map__fd(map);
}

std::vector<ProbeCost> LoadedProbe::Costs() const {
  std::vector<ProbeCost> costs;
  if (!loaded_) return costs;
  bpf_program* program = nullptr;
  bpf_object__for_each_program(program, opened_.object) {
    if (!bpf_program__autoload(program)) continue;
    ProbeCost cost;
    cost.name = absl::StrCat(status_.name, ":", TracepointOf(program));
    bpf_prog_info info;
    std::memset(&info, 0, sizeof(info));
    uint32_t info_length = sizeof(info);
    if (bpf_obj_get_info_by_fd(bpf_program__fd(program), &info, &info_length) == 0) {
      cost.run_cnt = info.run_cnt;
      cost.run_time_ns = info.run_time_ns;
    }
    costs.push_back(std::move(cost));
  }
  return costs;
}

}  // namespace nictune::driver::bpf
