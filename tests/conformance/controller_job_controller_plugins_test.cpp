// Volcano v1.12.1 pkg/controllers/job/job_controller_plugins_test.go: the job plugins' hooks
// (pluginOnPodCreate, pluginOnJobAdd, pluginOnJobDelete).
#include "conformance.hpp"

NOT_APPLICABLE("job_controller_plugins_test.go", "", "",
               "the job plugins (env, svc, ssh, and the distributed-framework ones; pkg/controllers/job/plugins) are not modelled: "
               "TorchX's Jobs name svc and env, whose Service, hosts ConfigMap and environment variables let torchrun reach rank "
               "0; mltwin models the rendezvous, not these objects");
