// Resource arithmetic against Volcano's definitions (pkg/scheduler/api/resource_info.go).
#include <doctest/doctest.h>

#include "mltwin/policy/resource.hpp"

using namespace mltwin::policy;

TEST_CASE("less_equal tolerates differences below minResource (0.1) in every dimension") {
  Resource a = Resource::make(1, 100);
  Resource b = a;
  b[Dim::Cpu] -= 0.05;  // 0.05 millicore less: still equal within tolerance
  CHECK(a.less_equal(b));
  b[Dim::Cpu] -= 0.1;   // 0.15 less: not any more
  CHECK_FALSE(a.less_equal(b));
  CHECK(a.first_insufficient(b) == 0);
}

TEST_CASE("less_equal_with_dimension compares only the requested dimensions, strictly") {
  const Resource req = Resource::make(0, 0, 2);      // 2 NeuronCores, nothing else
  const Resource used = Resource::make(500, 1e12, 2);  // far over on cpu and memory
  const Resource cap = Resource::make(1, 1, 2);
  CHECK(used.less_equal_with_dimension(cap, req));
  Resource more = used;
  more[Dim::NeuronCore] += 0.01;  // strict: no tolerance here
  CHECK_FALSE(more.less_equal_with_dimension(cap, req));
}

TEST_CASE("share follows helpers.Share: 0/0 = 0, x/0 = 1") {
  CHECK(share(0, 0) == 0.0);
  CHECK(share(3, 0) == 1.0);
  CHECK(share(1, 4) == 0.25);
}

TEST_CASE("exceeded_part and min_dimension") {
  Resource l = Resource::make(4, 10, 6, 0), r = Resource::make(2, 20, 6, 1);
  const Resource e = Resource::exceeded_part(l, r);
  CHECK(e[Dim::Cpu] == 2000);
  CHECK(e[Dim::Memory] == 0);
  CHECK(e[Dim::NeuronCore] == 0);
  CHECK(e[Dim::Efa] == 0);
  Resource inf = Resource::infinite();
  inf.min_dimension(r);
  CHECK(inf == r);
}

TEST_CASE("the three Neuron resource names share one NeuronCore dimension") {
  // Trn1: a device is one Trainium chip with 2 NeuronCores.
  auto dev = map_resource_name("aws.amazon.com/neuron", 2);
  auto dev2 = map_resource_name("aws.amazon.com/neurondevice", 2);
  auto core = map_resource_name("aws.amazon.com/neuroncore", 2);
  REQUIRE(dev);
  REQUIRE(dev2);
  REQUIRE(core);
  CHECK(dev->dim == Dim::NeuronCore);
  CHECK(dev2->dim == Dim::NeuronCore);
  CHECK(core->dim == Dim::NeuronCore);
  // 16 devices = 32 cores, in milli-units.
  CHECK(16 * dev->scale == 32 * core->scale);
  CHECK(32 * core->scale == 32000);
  CHECK(map_resource_name("vpc.amazonaws.com/efa", 2)->dim == Dim::Efa);
  CHECK_FALSE(map_resource_name("nvidia.com/gpu", 2));
}
