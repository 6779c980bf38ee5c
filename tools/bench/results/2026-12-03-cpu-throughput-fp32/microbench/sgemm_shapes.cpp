#include <oneapi/dnnl/dnnl.h>
#include <omp.h>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <random>
struct Shape { int m, n, k; };
int main(int argc, char** argv) {
  std::vector<Shape> shapes = {{256,768,768},{512,768,768},{1024,768,768},{256,2304,768},{512,2304,768},{1024,2304,768},
                               {512,3072,768},{512,768,3072},{1024,3072,768},{1024,768,3072},{512,9216,768}};
  const int T = 2;
  std::mt19937 g(1); std::uniform_real_distribution<float> u(-1,1);
  std::vector<float> W(9216*3072), X(T*1024*3072), Y(T*1024*9216);
  for (auto& v : W) v = u(g); for (auto& v : X) v = u(g);
  std::vector<std::vector<double>> gf(shapes.size());
  for (int rep = 0; rep < 7; ++rep)
    for (size_t s = 0; s < shapes.size(); ++s) {
      auto [m, n, k] = shapes[s];
      double best = 0;
      for (int it = 0; it < 3; ++it) {
        auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(T)
        { int t = omp_get_thread_num();
          dnnl_sgemm('N','T', m, n, k, 1.f, X.data() + size_t(t)*m*k, k, W.data(), k, 0.f, Y.data() + size_t(t)*m*n, n); }
        double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        best = std::max(best, 2.0*m*n*k*T/sec/1e9);
      }
      gf[s].push_back(best);
    }
  for (size_t s = 0; s < shapes.size(); ++s) {
    auto v = gf[s]; std::sort(v.begin(), v.end());
    printf("M=%4d/thread N=%5d K=%4d: median %.0f GF/s (2 threads), range %.0f-%.0f\n", shapes[s].m, shapes[s].n, shapes[s].k, v[3], v[0], v[6]);
  }
}
