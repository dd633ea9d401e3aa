// The ranks of a run that spans processes, over Gloo (Debian's libgloo-dev,
// the library XLA:CPU uses across processes): TCP between every pair of
// members, rendezvous through a KeyValueStore. Gloo stays behind this header,
// so its users need neither its headers nor its library; a build without
// Gloo compiles this file to a stub whose connectGloo says so.
#pragma once

#include <chrono>
#include <memory>
#include <span>
#include <vector>
#include <string>

#include "kiln/collectives/communicator.h"
#include "kiln/distributed/key_value_store.h"

namespace kiln::distributed {

struct GlooOptions {
  // Keys of this communicator in the store start with it: every process of
  // the run passes the same prefix, one not used before in the run.
  std::string keyPrefix = "kiln";
  // How long connecting, and each collective, waits for the other members
  // before failing (a member that died makes the others fail within it).
  std::chrono::milliseconds timeout{60000};
  // The address other processes reach this one at.
  std::string hostname = "127.0.0.1";
};

// Whether this build has Gloo.
bool glooAvailable();

// Connects global rank `rank` of `size` (every rank calls it, in any order
// and any process; it returns once all have). Sub-groups get a Gloo context
// of their own at their first collective (their members make it together).
// `store` must outlive the communicator.
Expected<std::unique_ptr<collectives::Communicator>> connectGloo(std::shared_ptr<KeyValueStore> store, int rank,
                                                                 int size, const GlooOptions& options);

// connectGloo for several ranks of this process at once (on threads: each
// waits for all the others, these included). The communicators in the order
// of `ranks`, or the first error.
Expected<std::vector<std::unique_ptr<collectives::Communicator>>> connectGlooRanks(
    std::shared_ptr<KeyValueStore> store, std::span<const int> ranks, int size, const GlooOptions& options);

}  // namespace kiln::distributed
