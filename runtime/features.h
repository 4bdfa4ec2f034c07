// Model features the forward pass does not implement, found in
// the metadata, refused at load rather than producing wrong text.
#pragma once
#include <string>

#include "loader/metadata.h"

namespace ck {

// Throws std::runtime_error naming the feature and its metadata key:
// sliding-window attention (but gemma3, phi3), mixture of experts, RoPE
// scaling other than linear, LayerNorm instead of RMSNorm, logit soft-capping.
void refuse_unsupported_features(const Metadata& meta, const std::string& arch, const std::string& source);

}  // namespace ck
