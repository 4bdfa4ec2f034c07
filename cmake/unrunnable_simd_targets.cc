// Configure-time probe for the sanitizer builds: prints, as a Highway target
// bitmask, the targets this build would compile that the configuring CPU
// cannot run. Their code could only be compiled there, never tested.
#include <cstdio>

#include "hwy/targets.h"

int main() {
  std::printf("%lld", static_cast<long long>(HWY_TARGETS & ~hwy::SupportedTargets()));
}
