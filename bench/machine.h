// What the bench reads of the machine it runs on, shared by every mode.
#pragma once

#include <string>

namespace quire::bench {

// The CPU's marketing name as cpuinfo reads it.
std::string cpu_name();

// Memory bandwidth as memcpy of 256 MiB moves it (bytes read + bytes written per second,
// best of 3): what a memory-bound kernel can hope for when its data is not in cache.
double copy_bandwidth_gbs();

}  // namespace quire::bench
