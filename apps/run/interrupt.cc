#include "apps/run/interrupt.h"

#include <signal.h>

#include <csignal>

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
  // A parent may hand down SIGINT blocked (some job runners do); Ctrl-C must work.
  sigset_t sigint;
  sigemptyset(&sigint);
  sigaddset(&sigint, SIGINT);
  pthread_sigmask(SIG_UNBLOCK, &sigint, nullptr);
}
bool interrupted() { return g_interrupted != 0; }

}  // namespace ck::app
