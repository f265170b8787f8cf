// What a message a transport posts for the engine is for: the engine's own
// kinds, and from kTransportOp on, kinds a transport uses for messages of
// its own (the device transport's notes and acks).
#pragma once

#include <cstdint>

namespace nbrcoll::engine {

enum class Op : std::uint8_t { kRecv, kSend, kBundleHead, kBundleRest, kBundleSend, kTransportOp };

struct Token {
  Op op = Op::kRecv;
  int index = 0;  // the fragment or bundle of the plan (or what the transport's own kind names)
};

}  // namespace nbrcoll::engine
