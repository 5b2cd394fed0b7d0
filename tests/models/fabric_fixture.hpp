// fabric_fixture.hpp — the test fabric shared by test_fabric.cpp and test_collective.cpp:
// trn1.32xlarge as the scenarios' catalog states it, round figures, nodes by name.
#pragma once
#include <sstream>
#include <string>
#include <vector>

#include "mltwin/core/time.hpp"
#include "mltwin/models/catalog.hpp"
#include "mltwin/models/fabric.hpp"
#include "mltwin/models/fabric_params.hpp"

namespace mltwin::test {

// trn1.32xlarge as the scenarios' catalog states it (16 chips x 2 cores, 8 EFA interfaces),
// and a made-up single-chip type without EFA.
inline models::Catalog test_catalog() {
  models::Catalog c;
  models::InstanceType t;
  t.name = "trn1.32xlarge";
  t.trainium_chips = 16;
  t.neuroncores_per_chip = 2;
  t.efa_interfaces = 8;
  t.network_gbps = 800;
  c.types.push_back(t);
  models::InstanceType s;
  s.name = "small";
  s.trainium_chips = 1;
  s.neuroncores_per_chip = 2;
  s.efa_interfaces = 0;
  c.types.push_back(s);
  return c;
}

// Round test figures (not the scenario's): 100 Gb/s per EFA interface, 10 us EFA latency;
// NeuronLink 4 x 4 torus, 800 Gb/s per link, 1 us.
inline models::FabricParams test_params() {
  models::FabricParams p;
  p.efa = {100.0, core::Duration::us(10), "test"};
  p.neuronlink.push_back({"trn1.32xlarge", 4, 4, 800.0, core::Duration::us(1), "test"});
  return p;
}

// n nodes named prefix0, prefix1, ... of one type in one zone.
inline std::vector<models::FabricNode> nodes(int n, const std::string& zone, const std::string& type = "trn1.32xlarge",
                                             const std::string& prefix = "n") {
  std::vector<models::FabricNode> out;
  for (int i = 0; i < n; ++i) {
    std::ostringstream name;  // (not prefix + to_string: GCC 12 gives a false -Wrestrict at -O3)
    name << prefix << i;
    out.push_back({name.str(), type, zone});
  }
  return out;
}

}  // namespace mltwin::test
