// SPDX-License-Identifier: Apache-2.0
#include "driver/emulated/knob_provider.h"

#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "driver/emulated/control_commands.h"

namespace nictune::driver::emulated {
namespace {

class EmulatedNicKnob : public knobs::KnobAccess {
 public:
  EmulatedNicKnob(knobs::KnobAddress address, absl::string_view key, ControlClient client)
      : address_(std::move(address)), key_(key), client_(std::move(client)) {}

  const knobs::KnobAddress& address() const override { return address_; }

  absl::StatusOr<int64_t> Read() override {
    absl::StatusOr<std::string> value =
        client_.Call(ControlRequest{.verb = ControlVerb::kGet, .key = key_});
    if (!value.ok()) return Named("read", value.status());
    int64_t number = 0;
    if (!absl::SimpleAtoi(*value, &number)) {
      return absl::InternalError(
          absl::StrCat(Describe(), ": read '", *value, "' from the emulated NIC, not an integer"));
    }
    return number;
  }

  absl::Status Write(int64_t value) override {
    absl::StatusOr<std::string> answer =
        client_.Call(ControlRequest{.verb = ControlVerb::kSet, .key = key_, .value = value});
    if (!answer.ok()) return Named(absl::StrCat("write ", value), answer.status());
    return absl::OkStatus();
  }

 private:
  std::string Describe() const {
    return absl::StrCat(std::string(tuner::KnobName(address_.knob)), " of emulated NIC ",
                        address_.target);
  }
  absl::Status Named(absl::string_view operation, const absl::Status& status) const {
    return absl::Status(status.code(),
                        absl::StrCat(Describe(), ": ", operation, ": ", status.message()));
  }

  knobs::KnobAddress address_;
  std::string key_;
  ControlClient client_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<knobs::KnobAccess>> EmulatedNicKnobProvider::Open(
    const knobs::KnobAddress& address) {
  if (address.target != device_) {
    return absl::NotFoundError(
        absl::StrCat("emulated NIC ", device_, " does not own target '", address.target, "'"));
  }
  const std::optional<absl::string_view> key = ControlKeyFor(address.knob);
  if (!key.has_value()) {
    return absl::UnimplementedError(absl::StrCat(std::string(tuner::KnobName(address.knob)),
                                                 " is not supported by emulated NIC ", device_));
  }
  return std::unique_ptr<knobs::KnobAccess>(new EmulatedNicKnob(address, *key, client_));
}

}  // namespace nictune::driver::emulated
