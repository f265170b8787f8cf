// Device-buffer detection through the runtime the application loaded: none
// loaded means host; with the fake CUDA driver, marked ranges are device.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <vector>

#include "transport/device/runtime_probe.h"

namespace nbrcoll {
namespace {

TEST(DeviceMemory, NoRuntimeLoadedMeansHost) {
  std::vector<char> buffer(64);
  EXPECT_EQ(dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD), nullptr) << "a real CUDA driver is loaded";
  EXPECT_FALSE(is_device_memory(buffer.data()));
  EXPECT_FALSE(is_device_memory(nullptr));
}

TEST(DeviceMemory, AsksTheLoadedRuntime) {
  void* fake = dlopen(NBRCOLL_FAKE_CUDA, RTLD_NOW | RTLD_GLOBAL);
  ASSERT_NE(fake, nullptr) << dlerror();
  auto mark = reinterpret_cast<void (*)(const void*, std::size_t)>(dlsym(fake, "fake_cuda_mark_device"));
  auto queries = reinterpret_cast<long (*)()>(dlsym(fake, "fake_cuda_queries"));
  ASSERT_NE(mark, nullptr);
  std::vector<char> device(256);
  std::vector<char> host(256);
  mark(device.data(), device.size());
  const long before = queries();
  EXPECT_TRUE(is_device_memory(device.data()));
  EXPECT_TRUE(is_device_memory(device.data() + 255));
  EXPECT_FALSE(is_device_memory(host.data()));
  EXPECT_EQ(queries() - before, 3);
}

}  // namespace
}  // namespace nbrcoll
