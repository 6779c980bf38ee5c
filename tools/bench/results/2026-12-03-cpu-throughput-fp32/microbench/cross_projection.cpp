// Cross-memory projections of the 32 documents: rows split over 2 threads (now) vs products side by side.
#include <oneapi/dnnl/dnnl.h>
#include <omp.h>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <random>
#include <fstream>
#include <string>
// usage: cross_projection [DOCS.jsonl] (default: the harness's documents, from the project's root)
int main(int argc, char** argv) {
  std::vector<int> S;
  { std::ifstream f(argc > 1 ? argv[1] : "build-ct2/docs-32-128-1024.jsonl"); std::string l;
    while (std::getline(f, l)) S.push_back(int(std::count(l.begin(), l.end(), ',')) + 1); }
  const int D = 768, J = 12;
  std::mt19937 g(1); std::uniform_real_distribution<float> u(-1,1);
  std::vector<std::vector<float>> W(J, std::vector<float>(D*D)), X(S.size());
  for (auto& w : W) for (auto& v : w) v = u(g);
  for (size_t i = 0; i < S.size(); ++i) { X[i].resize(size_t(S[i])*D); for (auto& v : X[i]) v = u(g); }
  std::vector<float> Y0(1024*D), Y1(1024*D), big(64<<20);  // big: flushes caches between docs
  double flop = 0; for (int s : S) flop += 2.0*s*D*D*J;
  for (int rep = 0; rep < 4; ++rep) for (int mode = 0; mode < 2; ++mode) {
    double sec = 0;
    for (size_t i = 0; i < S.size(); ++i) {
      for (size_t k = 0; k < big.size(); k += 16) big[k] += 1.f;
      const int s = S[i];
      auto t0 = std::chrono::steady_clock::now();
      if (mode == 0) {
        const int parts = (s + 511) / 512;
        for (int j = 0; j < J; ++j) for (int p = 0; p < parts; ++p) {
          const int r0 = s * p / parts, rows = s * (p + 1) / parts - r0;
#pragma omp parallel num_threads(2)
          { int t = omp_get_thread_num(); int a = rows * t / 2, b = rows * (t + 1) / 2;
            dnnl_sgemm('N','T', b - a, D, D, 1.f, X[i].data() + size_t(r0 + a)*D, D, W[j].data(), D, 0.f, Y0.data() + size_t(a)*D, D); }
        }
      } else {
        for (int j = 0; j < J; j += 2) {
#pragma omp parallel num_threads(2)
          { int t = omp_get_thread_num();
            dnnl_sgemm('N','T', s, D, D, 1.f, X[i].data(), D, W[j + t].data(), D, 0.f, (t ? Y1 : Y0).data(), D); }
        }
      }
      sec += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    printf("%s: %.3f s, %.0f GF/s\n", mode ? "side by side" : "rows split  ", sec, flop / sec / 1e9);
  }
}
