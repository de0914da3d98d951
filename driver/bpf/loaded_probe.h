// SPDX-License-Identifier: Apache-2.0
// One probe concern (a BPF object: irq, napi, ...) loaded and attached, with the tp_btf -> raw_tp
// fallback per handler. A concern is attached only when all its handlers are: its numbers are
// meaningless with half of them missing.
#pragma once

#include <bpf/libbpf.h>

#include <cerrno>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "driver/probe_source.h"

namespace nictune::driver::bpf {

// An opened, not yet loaded BPF object and the skeleton that owns it.
struct OpenedObject {
  bpf_object* object = nullptr;
  void* skeleton = nullptr;
  // Loads through the skeleton so that its .bss/.data pointers become the kernel's maps.
  std::function<int()> load;
  std::function<void()> destroy;  // frees the skeleton (and the object with it)
};

using ObjectOpener = std::function<absl::StatusOr<OpenedObject>()>;

// "open CONCERN: <strerror> (errno N)"
absl::Status OpenFailure(absl::string_view concern, int error_number);

// Opens a bpftool skeleton and lets `configure` set its .rodata and map sizes before load.
template <typename Skeleton>
ObjectOpener SkeletonOpener(const char* concern, std::function<void(Skeleton&)> configure) {
  return [concern, configure]() -> absl::StatusOr<OpenedObject> {
    Skeleton* skeleton = Skeleton::open();
    if (skeleton == nullptr) return OpenFailure(concern, errno);
    if (configure) configure(*skeleton);
    return OpenedObject{skeleton->obj, skeleton, [skeleton] { return Skeleton::load(skeleton); },
                        [skeleton] { Skeleton::destroy(skeleton); }};
  };
}

class LoadedProbe;

// One handler's loaded program and the link that attaches it (null while detached), held by
// whoever took the handler over from its LoadedProbe (TakeOverHandlers).
struct HandlerLink {
  std::string tracepoint;  // e.g. "softirq_entry"
  bpf_program* program = nullptr;
  bpf_link* link = nullptr;
};

// A map that an object takes over from another, already attached concern (same name in both).
struct SharedMap {
  const LoadedProbe* owner;
  const char* map_name;
};

// Wraps `open` so that the opened object uses the owners' maps (bpf_map__reuse_fd) instead of
// creating its own: how concerns share per-CPU state without a second program per tracepoint.
// Opening fails, naming the map and the owner, when an owner is not attached.
ObjectOpener SharingMaps(const char* concern, ObjectOpener open, std::vector<SharedMap> maps);

class LoadedProbe {
 public:
  // Loads every handler of the object (programs named HANDLER_btf / HANDLER_raw), tp_btf first;
  // a handler the kernel refuses as tp_btf is retried as its raw_tp twin. Handlers listed in
  // `unused_handlers` are not loaded (variants for other kernels). Never fails: a concern that
  // cannot run comes back detached, with the reason in status().
  static std::unique_ptr<LoadedProbe> Load(std::string concern, const ObjectOpener& open,
                                           const std::vector<std::string>& unused_handlers);
  ~LoadedProbe();
  LoadedProbe(const LoadedProbe&) = delete;
  LoadedProbe& operator=(const LoadedProbe&) = delete;

  const ProbeStatus& status() const { return status_; }
  // Programs attached and running.
  bool attached() const { return status_.attached; }
  // Loaded with every handler attachable: its maps are readable, attached or paused.
  bool loaded() const { return loaded_; }

  // Detaches the programs and keeps the loaded object and its maps (no-op when paused);
  // `why` becomes status().reason while paused.
  absl::Status Pause(absl::string_view why);
  // Attaches the paused programs again; on failure none stays attached and the error names the
  // tracepoint and the errno.
  absl::Status Resume();

  // Moves the attached links of `handlers` (names without the _btf/_raw suffix) to the caller,
  // who attaches and detaches them from then on and destroys them before this probe goes: Pause
  // and Resume leave them alone. Costs() still reports them. Fails, changing nothing, unless the
  // probe is attached and every handler is one of its attached programs.
  absl::StatusOr<std::vector<HandlerLink>> TakeOverHandlers(
      const std::vector<std::string>& handlers);
  // The handlers attached now and not taken over, as TakeOverHandlers names them.
  std::vector<std::string> AttachedHandlers() const;

  // The skeleton (valid while loaded), e.g. to reach its mmapped .bss.
  template <typename Skeleton>
  Skeleton* skeleton() const {
    return static_cast<Skeleton*>(opened_.skeleton);
  }

  // File descriptor of a map of the loaded object.
  absl::StatusOr<int> MapFd(const char* map_name) const;

  // run_cnt / run_time_ns of each attached program, named "concern:tracepoint".
  std::vector<ProbeCost> Costs() const;

 private:
  explicit LoadedProbe(std::string concern);
  void Detach();
  void DestroyLinks();

  ProbeStatus status_;
  bool loaded_ = false;
  std::string attach_notes_;  // status_.reason while attached (fallbacks taken at load)
  OpenedObject opened_;
  struct ProgramLink {
    bpf_program* program = nullptr;
    bpf_link* link = nullptr;
  };
  std::vector<ProgramLink> links_;
  std::set<const bpf_program*> taken_over_;  // attached by someone else (TakeOverHandlers)
};

}  // namespace nictune::driver::bpf
