#include "runtime/forward_profile.h"

namespace ck {
namespace {

std::atomic<bool> g_recording{false};
ForwardProfile g_profile;
std::atomic<int64_t> g_barrier_wait_ns{0};

}  // namespace

std::string_view step_name(Step s) {
  switch (s) {
    case Step::Embed: return "embedding";
    case Step::AttnNorm: return "attention norm";
    case Step::Qkv: return "matmul q,k,v";
    case Step::QkvPost: return "rope, kv store";
    case Step::Attention: return "attention";
    case Step::Wo: return "matmul o";
    case Step::FfnNorm: return "residual, ffn norm";
    case Step::GateUp: return "matmul gate,up";
    case Step::Activation: return "activation";
    case Step::Down: return "matmul down";
    case Step::Residual: return "residual";
    case Step::Output: return "output norm, logits";
    case Step::kCount: break;
  }
  return "?";
}

bool step_is_matmul(Step s) {
  return s == Step::Qkv || s == Step::Wo || s == Step::GateUp || s == Step::Down || s == Step::Output;
}

void start_forward_profile() {
  g_profile = {};
  g_barrier_wait_ns.store(0, std::memory_order_relaxed);
  g_recording.store(true, std::memory_order_release);
}

void stop_forward_profile() { g_recording.store(false, std::memory_order_release); }

ForwardProfile forward_profile() {
  ForwardProfile p = g_profile;
  p.barrier_wait_ns = g_barrier_wait_ns.load(std::memory_order_relaxed);
  return p;
}

ForwardProfile* recording_forward_profile() {
  return g_recording.load(std::memory_order_acquire) ? &g_profile : nullptr;
}

std::atomic<int64_t>* recording_barrier_wait() {
  return g_recording.load(std::memory_order_acquire) ? &g_barrier_wait_ns : nullptr;
}

}  // namespace ck
