#include "runtime/features.h"

#include <stdexcept>

namespace ck {

void refuse_unsupported_features(const Metadata& meta, const std::string& arch, const std::string& source) {
  auto refuse = [&](const std::string& feature, const std::string& key) {
    throw std::runtime_error(source + ": " + feature + " (" + key + ") is not supported by the " + arch +
                             " runtime");
  };
  const std::string a = arch + ".";
  // gemma3 applies the window on its local layers; phi3 ignores it, as llama.cpp does (loader/model_config.cc).
  if (arch != "gemma3" && arch != "phi3" && meta.get_u64(a + "attention.sliding_window").value_or(0) > 0) {
    refuse("sliding-window attention", a + "attention.sliding_window");
  }
  if (meta.get_u64(a + "expert_count").value_or(0) > 0) refuse("mixture of experts", a + "expert_count");
  if (auto type = meta.get_string(a + "rope.scaling.type"); type && *type != "none" && *type != "linear") {
    refuse("RoPE scaling '" + *type + "'", a + "rope.scaling.type");
  }
  if (meta.contains(a + "attention.layer_norm_epsilon")) refuse("LayerNorm", a + "attention.layer_norm_epsilon");
  if (meta.contains(a + "attn_logit_softcapping")) refuse("attention logit soft-capping", a + "attn_logit_softcapping");
  if (meta.contains(a + "final_logit_softcapping")) refuse("final logit soft-capping", a + "final_logit_softcapping");
}

}  // namespace ck
