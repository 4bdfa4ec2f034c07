#include "apps/run/interrupt.h"

#include <csignal>

#include "apps/common/app_main.h"

namespace ck::app {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;

void on_sigint(int) {
  g_interrupted = 1;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends a stuck run at once
}

}  // namespace

void install_interrupt_handler() {
  std::signal(SIGINT, on_sigint);
  unblock_sigint();
}
bool interrupted() { return g_interrupted != 0; }

}  // namespace ck::app
