// SPDX-License-Identifier: Apache-2.0
// AttachDispatchFloor (driver/dispatch_floor.h): exists only to measure the dispatch cost of the
// default probe set's hooks with programs that do nothing; loaded like the probes (LoadedProbe:
// tp_btf first, the raw_tp twin where the kernel refuses it), so both sides pay the same way.
#include "driver/dispatch_floor.h"

#include "absl/strings/str_cat.h"
#include "dispatch_floor.skel.h"  // generated into the build tree by bpftool
#include "driver/bpf/loaded_probe.h"

namespace nictune::driver {
namespace {

class LoadedDispatchFloor final : public DispatchFloor {
 public:
  explicit LoadedDispatchFloor(std::unique_ptr<bpf::LoadedProbe> probe)
      : probe_(std::move(probe)) {}
  std::vector<ProbeCost> Cost() const override { return probe_->Costs(); }

 private:
  std::unique_ptr<bpf::LoadedProbe> probe_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<DispatchFloor>> AttachDispatchFloor(FloorHooks hooks) {
  std::vector<std::string> left_out;
  if (hooks == FloorHooks::kNapiPollOnly) left_out = {"floor_softirq_entry", "floor_softirq_exit"};
  std::unique_ptr<bpf::LoadedProbe> probe = bpf::LoadedProbe::Load(
      "dispatch_floor", bpf::SkeletonOpener<dispatch_floor>("dispatch_floor", nullptr), left_out);
  if (!probe->attached()) {
    return absl::UnavailableError(
        absl::StrCat("BPF dispatch_floor: not attached: ", probe->status().reason));
  }
  return std::make_unique<LoadedDispatchFloor>(std::move(probe));
}

}  // namespace nictune::driver
