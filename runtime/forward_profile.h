// Where the time of forward passes goes (ck-bench --profile): the wall time
// of each step of the pass, summed over the passes while recording is on,
// and the time the threads spent waiting at the team's barriers.
//
// Every step of the pass ends at a barrier, so the calling thread's time
// from one step's end to the next one's is that step's wall time, its
// threads' waiting included. The barrier time is the part of it that some
// thread spent idle (load imbalance and the barrier itself), summed over the
// threads. Recording is off by default and costs a clock read per step when
// on; it is a process-wide switch, for one forward pass at a time.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

namespace ck {

// The steps of the pass, in its order (runtime/forward.cc).
enum class Step : int {
  Embed,
  AttnNorm,
  Qkv,        // matmul: q, k, v = xb @ Wq, Wk, Wv
  QkvPost,    // biases, q/k norms, RoPE, the KV cache stores
  Attention,
  Wo,         // matmul: att_out @ Wo
  FfnNorm,    // residual add, RMSNorm
  GateUp,     // matmul: xb @ Wgate, Wup
  Activation, // SiLU/GELU times up
  Down,       // matmul: (act * up) @ Wdown
  Residual,
  Output,     // final norm and the logits matmul
  kCount
};
std::string_view step_name(Step s);
bool step_is_matmul(Step s);

struct StepTotals {
  int64_t ns = 0;
  int64_t calls = 0;  // once per layer per pass, or once per pass
  int64_t macs = 0;  // multiply-adds of its matmul (0 for the other steps)
  int64_t rows = 0;  // the matmul's output rows and input columns
  int64_t cols = 0;
};

struct ForwardProfile {
  std::array<StepTotals, static_cast<size_t>(Step::kCount)> steps;
  int64_t passes = 0;
  int64_t tokens = 0;             // tokens through the passes
  int64_t barrier_wait_ns = 0;    // summed over the threads
  int64_t thread_passes = 0;      // passes times their threads
};

// Starts recording from zero, or stops it.
void start_forward_profile();
void stop_forward_profile();
// What has been recorded since the last start.
ForwardProfile forward_profile();

// For forward.cc: the totals being recorded, or null while off; and the
// counter the team's barriers add their waits to (kernels/team.h).
ForwardProfile* recording_forward_profile();
std::atomic<int64_t>* recording_barrier_wait();

}  // namespace ck
