#include <x86intrin.h>
#include <chrono>
#include <cstdio>
#include <cstdint>
int main() {
  const int n = 2000000;
  volatile std::uint64_t sink = 0;
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) sink += __rdtsc();
    auto t1 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) sink += std::chrono::steady_clock::now().time_since_epoch().count();
    auto t2 = std::chrono::steady_clock::now();
    std::printf("rdtsc %.1f ns, steady_clock %.1f ns\n", std::chrono::duration<double, std::nano>(t1 - t0).count() / n,
                std::chrono::duration<double, std::nano>(t2 - t1).count() / n);
  }
  return 0;
}
