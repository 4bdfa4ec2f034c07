// Mirostat (Basu et al. 2020), both versions with llama.cpp's meaning: keeps
// the surprise (-log2 p) of the drawn tokens near a target tau by
// truncating every distribution according to a running bound mu (2 tau at
// the start), learned at rate eta from each drawn token's surprise.
#pragma once
#include "runtime/sampling/candidates.h"

namespace ck::sampling {

// The target and the bound both versions learn.
class MirostatBound {
 public:
  MirostatBound(float tau, float eta) : tau_(tau), eta_(eta), mu_(2.0f * tau) {}
  // Picks the candidate `draw` (uniform in [0, 1)) lands on in the softmax
  // of what is left, and moves mu toward tau by its surprise.
  int32_t draw_and_learn(Candidates& c, double draw);
  void reset() { mu_ = 2.0f * tau_; }
  float mu() const { return mu_; }

 private:
  float tau_, eta_, mu_;
};

// Version 1: estimates the Zipf exponent s of the distribution from its m
// most likely tokens (a least-squares fit of log(p_i / p_i+1) against
// log((i+1) / i)), and keeps the k most likely tokens, k the number whose
// expected surprise under that Zipf law over the whole vocabulary is mu:
// k = (e 2^mu / (1 - N^-e))^(1/s), e = s - 1.
class MirostatV1 {
 public:
  // llama.cpp's m is 100; n_vocab is the whole vocabulary's size.
  MirostatV1(float tau, float eta, int n_vocab, int m = 100) : bound_(tau, eta), n_vocab_(n_vocab), m_(m) {}
  int32_t sample(Candidates& c, double draw);
  void reset() { bound_.reset(); }
  float mu() const { return bound_.mu(); }
  // The k above, before rounding down (tested on its own).
  static double zipf_k(const Candidates& sorted, int m, double mu, int n_vocab);

 private:
  MirostatBound bound_;
  int n_vocab_, m_;
};

// Version 2: drops the candidates more surprising than mu (keeping at
// least the most likely).
class MirostatV2 {
 public:
  MirostatV2(float tau, float eta) : bound_(tau, eta) {}
  int32_t sample(Candidates& c, double draw);
  void reset() { bound_.reset(); }
  float mu() const { return bound_.mu(); }

 private:
  MirostatBound bound_;
};

}  // namespace ck::sampling
