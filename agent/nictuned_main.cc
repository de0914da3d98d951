#include <iostream>

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "agent/build_info.h"

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("nictuned: measures and tunes NIC interrupt mitigation");
  absl::FlagsUsageConfig usage;
  usage.version_string = [] { return std::string(nictune::agent::Version()) + "\n"; };
  absl::SetFlagsUsageConfig(usage);
  absl::ParseCommandLine(argc, argv);
  return 0;
}
