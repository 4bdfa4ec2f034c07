#include "apps/server/api_error.h"

namespace ck::server {

std::string error_type(int status) {
  if (status == 401) return "authentication_error";
  if (status == 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

nlohmann::json error_json(int status, const std::string& message, const std::string& param) {
  nlohmann::json e = {{"message", message}, {"type", error_type(status)}, {"code", status}};
  e["param"] = param.empty() ? nlohmann::json(nullptr) : nlohmann::json(param);
  return {{"error", e}};
}

}  // namespace ck::server
