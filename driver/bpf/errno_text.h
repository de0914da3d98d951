// "strerror (errno N)": how the BPF side's errors name an errno.
#pragma once

#include <string>

namespace nictune::driver::bpf {

std::string ErrnoText(int error_number);

}  // namespace nictune::driver::bpf
