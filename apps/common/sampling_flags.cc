#include "apps/common/sampling_flags.h"

#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "apps/common/escapes.h"
#include "apps/common/repeatable_option.h"

namespace ck::app {

void add_sampling_flags(CLI::App& app, SamplingOptions& o) {
  SamplerParams& p = o.params;
  app.add_option("--temp,--temperature", p.temp, "Temperature; 0 = greedy")->capture_default_str();
  app.add_option("--top-k", p.top_k, "Keep the K most likely tokens; 0 or less = off")->capture_default_str();
  app.add_option("--top-p", p.top_p, "Keep the most likely tokens up to probability P; 1 = off")
      ->capture_default_str();
  app.add_option("--min-p", p.min_p, "Drop tokens less likely than P times the best; 0 = off")
      ->capture_default_str();
  app.add_option("--typical", p.typical_p,
                 "Locally typical sampling: keep the tokens whose surprise is closest to the entropy, up to "
                 "probability P; 1 = off")
      ->capture_default_str();
  app.add_option("--repeat-penalty", p.repeat_penalty,
                 "Penalize tokens seen in the last --repeat-last-n: a positive logit is divided by it, a negative "
                 "one multiplied; 1 = off")
      ->capture_default_str();
  app.add_option("--presence-penalty", p.presence_penalty,
                 "Subtract this from the logit of every token seen in the last --repeat-last-n; 0 = off")
      ->capture_default_str();
  app.add_option("--frequency-penalty", p.frequency_penalty,
                 "Subtract this times its count from the logit of a token seen in the last --repeat-last-n; 0 = off")
      ->capture_default_str();
  app.add_option("--repeat-last-n", p.repeat_last_n,
                 "Window of the repeat, presence and frequency penalties, in tokens; 0 = off, -1 = all the text")
      ->capture_default_str();
  app.add_option("--dry-multiplier", p.dry.multiplier,
                 "DRY: a token that would extend a repeated sequence loses MULT * base^(length - allowed length); "
                 "0 = off")
      ->capture_default_str();
  app.add_option("--dry-base", p.dry.base, "DRY base")->capture_default_str();
  app.add_option("--dry-allowed-length", p.dry.allowed_length, "DRY: repetitions this long go unpenalized")
      ->capture_default_str();
  app.add_option("--dry-penalty-last-n", p.dry.penalty_last_n,
                 "DRY: tokens to scan for repetitions; -1 = all the text, 0 = off")
      ->capture_default_str();
  add_repeatable_option(app, "--dry-sequence-breaker", o.dry_breakers,
                        "DRY: a string no repetition is counted across (repeatable; the first one replaces the "
                        "defaults \\n : \" *; \"none\" = no breakers)");
  app.add_option("--xtc-probability", p.xtc_probability,
                 "XTC: the chance per token of excluding the most likely tokens; 0 = off")
      ->capture_default_str();
  app.add_option("--xtc-threshold", p.xtc_threshold,
                 "XTC: the tokens at least this likely are excluded, except the least likely of them; > 0.5 = off")
      ->capture_default_str();
  app.add_option("--mirostat", p.mirostat,
                 "Mirostat: 0 = off, 1 = mirostat, 2 = mirostat 2.0 (either replaces top-k, top-p, min-p, "
                 "typical-p, XTC and the penalties, as in llama.cpp)")
      ->capture_default_str();
  app.add_option("--mirostat-lr", p.mirostat_eta, "Mirostat learning rate (eta)")->capture_default_str();
  app.add_option("--mirostat-ent", p.mirostat_tau, "Mirostat target entropy (tau)")->capture_default_str();
  app.add_option("--samplers", o.samplers,
                 "The sampler stages in order, separated by ';' (default: " +
                     sampler_names(SamplerParams::default_order()) + ")");
  app.add_option("--sampling-seq,--sampler-seq", o.sampling_seq,
                 "The same as --samplers in letters: e=penalties d=dry k=top_k y=typ_p p=top_p m=min_p x=xtc "
                 "t=temperature (default: edkypmxt)");
  add_repeatable_option(app, "-l,--logit-bias", o.logit_bias,
                        "TOKEN_ID(+/-)BIAS: add BIAS to the token's logit, e.g. 15043+1 or 15043-inf to ban it "
                        "(repeatable)");
  app.add_flag("--ignore-eos", o.ignore_eos,
               "Never end at an end-of-generation token: they are banned (as --logit-bias ID-inf for each)");
  app.add_option("--n-probs", o.n_probs,
                 "Print on stderr, for each generated token, the N most likely tokens of the distribution it was "
                 "drawn from, with their probabilities; 0 = off")
      ->capture_default_str();
}

LogitBias parse_logit_bias(const std::string& text) {
  const auto fail = [&] {
    throw std::runtime_error("--logit-bias " + text + ": expected TOKEN_ID(+/-)BIAS, e.g. 15043+1 or 15043-inf");
  };
  size_t sign = 0;
  while (sign < text.size() && text[sign] >= '0' && text[sign] <= '9') ++sign;
  if (sign == 0 || sign + 1 >= text.size() || (text[sign] != '+' && text[sign] != '-')) fail();
  const std::string magnitude = text.substr(sign + 1);
  char* end = nullptr;
  const float value = std::strtof(magnitude.c_str(), &end);
  if (end != magnitude.c_str() + magnitude.size() || std::isnan(value) || value < 0.0f) fail();
  const long token = std::strtol(text.substr(0, sign).c_str(), nullptr, 10);
  if (token > INT32_MAX) fail();
  return {static_cast<int32_t>(token), text[sign] == '-' ? -value : value};
}

void validate_sampling_options(SamplingOptions& o, bool escape) {
  SamplerParams& p = o.params;
  if (p.top_k < 0) p.top_k = 0;  // llama.cpp: any k <= 0 turns top-k off
  if (o.n_probs < 0) throw std::runtime_error("--n-probs must be >= 0, got " + std::to_string(o.n_probs));
  for (const std::string& b : o.logit_bias) p.logit_bias.push_back(parse_logit_bias(b));
  if (!o.samplers.empty() && !o.sampling_seq.empty()) {
    throw std::runtime_error("give the sampler order with --samplers or --sampling-seq, not both");
  }
  try {
    if (!o.samplers.empty()) p.order = parse_sampler_names(o.samplers);
    if (!o.sampling_seq.empty()) p.order = parse_sampler_letters(o.sampling_seq);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string(o.samplers.empty() ? "--sampling-seq: " : "--samplers: ") + e.what());
  }
  if (!o.dry_breakers.empty()) {
    p.dry.sequence_breakers.clear();
    for (const std::string& b : o.dry_breakers) {
      if (b != "none") p.dry.sequence_breakers.push_back(escape ? process_escapes(b) : b);
    }
  }
}

Sampler make_sampler(SamplerParams params, bool ignore_eos, const tok::Tokenizer& tokenizer) {
  if (ignore_eos) {
    for (int32_t id = 0; id < tokenizer.n_vocab(); ++id) {
      if (tokenizer.is_eog(id)) params.logit_bias.push_back({id, -INFINITY});
    }
  }
  return Sampler(params, tokenizer.n_vocab(),
                 [&tokenizer](int32_t id) { return tokenizer.token_to_piece(id, /*render_special=*/true); });
}

}  // namespace ck::app
