// Ctrl-C during generation: the handler only sets a flag; the generation
// loop checks it between tokens, stops cleanly and the app exits 130.
#pragma once

namespace ck::app {

// Installs the SIGINT handler (a second Ctrl-C kills the process as usual).
void install_interrupt_handler();
bool interrupted();

}  // namespace ck::app
