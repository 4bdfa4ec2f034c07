// An error answered to an HTTP client in OpenAI's shape:
//   {"error": {"message": ..., "type": ..., "param": ..., "code": ...}}
// with the HTTP status that goes with it (400 bad request, 401 no or wrong
// API key, 404 unknown route, 413 body too large, 429 queue full, 503
// shutting down, 500 a bug).
#pragma once
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace ck::server {

class ApiError : public std::runtime_error {
 public:
  ApiError(int status, std::string message, std::string param = {})
      : std::runtime_error(std::move(message)), status_(status), param_(std::move(param)) {}
  int status() const { return status_; }
  const std::string& param() const { return param_; }

 private:
  int status_;
  std::string param_;  // the request field at fault; empty = none
};

// OpenAI's error type for a status: "invalid_request_error" (400, 404, 413),
// "authentication_error" (401), "rate_limit_error" (429), "server_error" (5xx).
std::string error_type(int status);

nlohmann::json error_json(int status, const std::string& message, const std::string& param = {});

}  // namespace ck::server
