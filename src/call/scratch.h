// What one call needs besides its schedule, kept between calls so that a
// call allocates nothing once sizes have been seen: a communicator handle's
// blocking calls share one (one call at a time per handle, as MPI requires
// of collectives); a nonblocking call owns one; a persistent call keeps its
// own for every start.
#pragma once

#include "call/arguments.h"
#include "call/large_counts.h"
#include "call/layout.h"
#include "engine/bundle_store.h"
#include "engine/choice.h"
#include "engine/engine.h"
#include "transport/device/device_transport.h"
#include "transport/device/route.h"
#include "transport/requests.h"

namespace nbrcoll {

struct CallScratch {
  CallArgs args;
  NarrowedCall narrowed;  // decide(): a large-count call's int form
  CallLayout layout;
  engine::CallChoice choice;  // decide(): the variant of every unit, bundles
  DeviceRouting routing;      // decide(): where this rank's bytes lie (device transport only)
  engine::BundleStore bundles;
  engine::EngineScratch engine;
  MpiRequests requests;
  DeviceScratch device;
};

}  // namespace nbrcoll
