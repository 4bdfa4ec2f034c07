// Attention of the query heads that share one KV head (grouped-query
// attention), for one token: the keys and values are read once for the whole
// group instead of once per head.
#pragma once
#include <cstdint>

namespace ck {

// The most query heads one attend_group call takes; callers split larger
// groups.
inline constexpr int kMaxAttendHeads = 8;

// For g < nq (1..kMaxAttendHeads):
//   out[g * out_stride + i] = sum_j softmax_j(scale * q_g . key_j) * value_j[i]
// over keys j < n_keys, q_g = q + g * q_stride (head_dim values).
// Keys are stored transposed, so that one vector load holds a dimension of
// many keys: dim d of key j is kt[d * kt_stride + j]. Value j is the row
// v + j * head_dim. `scores` is scratch of nq * n_keys floats.
void attend_group(const float* q, int64_t q_stride, int nq, const float* kt, int64_t kt_stride, const float* v,
                  int64_t n_keys, int head_dim, float scale, float* scores, float* out, int64_t out_stride);

}  // namespace ck
