#!/usr/bin/env python3
"""Writes the shipped inference scenarios (scenarios/mme-*.json) from one set of sourced figures.

The blog scenarios differ only in the model server (DJL Serving / MMS) and the Locust tasks, so
they are generated here to stay consistent: edit the figures below, then run
    python3 scripts/gen-inference-scenarios.py
and commit the regenerated files. Every figure carries its source; figures that are our
assumptions say so.
"""
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "scenarios"

BLOG = ("AWS Machine Learning Blog, 'Run ML inference on unplanned and spiky traffic using Amazon SageMaker "
        "multi-model endpoints' (2024; DJL Serving 0.23.0 container, serving.properties engine=Python, "
        "max_idle_time=600)")
BLOG_REPO = "github.com/aws-samples/sagemaker-hosting, Advanced-Model-Deployment/MME-DJL"

# The instance types (ml.c5d.18xlarge: vCPUs, memory, instance storage, SageMaker price) come
# from the catalog that ships with mltwin, catalog/aws-instance-types.json (docs/catalog.md);
# the scenarios name them (schema_version 2).
SCHEMA_VERSION = 2

DJL_SRC = ("DJL Serving v0.23.0 defaults (github.com/deepjavalibrary/djl-serving, tag v0.23.0: "
           "wlm/src/main/java/ai/djl/serving/wlm/util/WlmConfigManager.java — job_queue_size 1000, batch_size 1, "
           "max_batch_delay 100 ms, max_idle_time 60 s; wlm/src/main/java/ai/djl/serving/wlm/ModelInfo.java reads "
           "serving.properties: minWorkers 1, maxWorkers = vCPUs / OMP_NUM_THREADS on CPU; "
           "serving/docs/configurations_model.md)")
WORKER_STARTUP = {
    "uniform": ["1s", "3s"],
    "source": "assumption: a DJL Python-engine worker is a python process that imports numpy/scikit-learn and "
              "unpickles the model (joblib.load); about 1-3 s on a C5 core. Not measured.",
}


def djl_server(idle_time_s=None):
    props = {"engine": "Python", "batch_size": 1, "max_batch_delay": 100, "job_queue_size": 1000, "minWorkers": 1,
             "OMP_NUM_THREADS": 1}
    src = DJL_SRC
    if idle_time_s is not None:
        props["max_idle_time"] = idle_time_s
        src = ("engine=Python and max_idle_time=600 from the blog's serving.properties (" + BLOG_REPO +
               "/serving.properties); the other keys are " + DJL_SRC + "; maxWorkers left to DJL's default "
               "(72 on ml.c5d.18xlarge)")
    else:
        src += "; maxWorkers left to DJL's default"
    return {"kind": "djl", "release": "0.23.0", "serving_properties": props, "worker_startup": WORKER_STARTUP,
            "source": src}


def mms_server():
    return {
        "kind": "mms",
        "release": "v1.1.9",
        "config_properties": {"job_queue_size": 100},
        "worker_startup": WORKER_STARTUP,
        "source": "Multi Model Server v1.1.9 (github.com/awslabs/multi-model-server, frontend/server/src/main/java/"
                  "com/amazonaws/ml/mms/util/ConfigManager.java): job_queue_size 100; default_workers_per_model "
                  "unset = one worker per vCPU (getDefaultWorkers), which the SageMaker inference toolkit keeps "
                  "unless SAGEMAKER_MODEL_SERVER_WORKERS is set; workers are static (never scaled)",
    }


def endpoint(instance_type, initial, min_i=None, max_i=None):
    e = {
        "instance_type": instance_type,
        "initial_instances": initial,
    }
    if min_i is not None:
        e["min_instances"] = min_i
    if max_i is not None:
        e["max_instances"] = max_i
    e.update({
        "instance_startup": {
            "uniform": ["4m", "8m"],
            "source": "assumption: launching an ML instance and pulling the serving container takes minutes; AWS "
                      "publishes no figure",
        },
        "health_check": {
            "uniform": ["5s", "20s"],
            "source": "assumption: DJL Serving's JVM starts and answers GET /ping; SageMaker then marks the "
                      "instance InService. Not measured.",
        },
        "memory_reserved": {
            "size": "4Gi",
            "source": "assumption: the OS, SageMaker's host agents and the model server's frontend (DJL's JVM / "
                      "MMS's JVM) hold about 4 GiB that models never get",
        },
        "model_cache": "Enabled",
        "s3": {
            "download_gbps": 5,
            "first_byte": {
                "uniform": ["100ms", "200ms"],
                "source": "Amazon S3 User Guide, 'Performance design patterns': small-object and first-byte "
                          "latencies of roughly 100-200 ms",
            },
            "source": "download bandwidth: assumption (the instance has up to 25 Gb/s of network; one S3 stream "
                      "gets less)",
        },
        "model_load": {
            "gbytes_per_s": 1.0,
            "fixed": {
                "uniform": ["1s", "3s"],
                "source": "assumption: DJL registers the model and its Python engine runs pip install -r "
                          "requirements.txt from the model folder (already satisfied: a pip check of 1-3 s)",
            },
            "unload": {"constant": "100ms", "source": "assumption: stopping the model's worker processes"},
            "source": "load throughput (disk -> memory, unpickling included): assumption",
        },
        "overhead": {
            "uniform": ["2ms", "6ms"],
            "source": "assumption: SageMaker's OverheadLatency (request routing, MME lookup, payload handling); "
                      "AWS publishes no figure",
        },
        "source": "SageMaker real-time multi-model endpoint, one production variant",
    })
    return e


SKLEARN_MODELS = {
    "copies": {
        "count": 1000,
        "name_prefix": "sklearn-",
        "model": {
            "artifact_size": "4Ki",
            "resident_size": "100Mi",
            "service": {
                "base": {
                    "exponential_mean": "2ms",
                    "source": "assumption: the blog does not report its model's compute time; a one-row "
                              "scikit-learn predict ([[0.5]]) through DJL's Python engine (socket round trip, JSON "
                              "decode, predict) takes about 1-3 ms",
                },
                "batch_marginal": 1.0,
            },
            "source": "the blog's 1,000 copies (sklearn-0..999.tar.gz) of one small scikit-learn model (" + BLOG_REPO +
                      "/sklearn-djl-mme-repro.ipynb); sizes are assumptions: the tarball (model.joblib, model.py, "
                      "requirements.txt, serving.properties) is a few KiB; a python worker with numpy and "
                      "scikit-learn imported holds about 100 MiB",
        },
    }
}

LOCUST_SRC = ("Locust scripts of " + BLOG_REPO + "/locust-utils ({script}; 450 users in distributed.sh); the "
              "scripts set no wait_time (tasks back to back) — we add constant_throughput 1500/450 per user so the "
              "offered load is 1,500 requests/s, and spawn 10 users/s (ours; Locust's default is 1/s)")


def locust(tasks, script):
    return {
        "locust": {
            "users": 450,
            "spawn_rate": 10,
            "wait_time": {"constant_throughput": round(1500 / 450, 6)},
            "tasks": tasks,
            "duration": "1h",
            "source": LOCUST_SRC.format(script=script),
        }
    }


PATTERNS = {
    "uniform": ("uniform over models 0..989 (locust_distributed.py: random.randint(0, 989))",
                [{"name": "send_request", "weight": 1, "popularity": {"uniform": {"first": 0, "last": 989}}}],
                "locust_distributed.py"),
    "one-hot": ("one hot model: 90 % of the requests to model 0, the rest uniform over 1..989 "
                "(locust_script_one.py: @task(9) sklearn-0, @task(1) random.randint(1, 989))",
                [{"name": "send_request", "weight": 9, "popularity": {"uniform": {"first": 0, "last": 0}}},
                 {"name": "send_request_major", "weight": 1, "popularity": {"uniform": {"first": 1, "last": 989}}}],
                "locust_script_one.py"),
    "top-n": ("11 hot models take 8/9 of the requests: uniform over 0..10, the rest uniform over 11..989 "
              "(locust_top_n.py: @task(8) random.randint(0, 10), @task(1) random.randint(11, 989))",
              [{"name": "send_request", "weight": 8, "popularity": {"uniform": {"first": 0, "last": 10}}},
               {"name": "send_request_major", "weight": 1, "popularity": {"uniform": {"first": 11, "last": 989}}}],
              "locust_top_n.py"),
}

OUTPUT = {"request_records_full": 100000, "request_sample_every": 100, "metrics_period": "60s"}
SLO = {"p99_model_latency": "100ms", "max_5xx_ratio": 0.001,
       "source": "ours: the blog states no SLO"}


def write(name, doc):
    path = OUT / (name + ".json")
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    print("wrote", path.relative_to(ROOT))


ROUTING = {
    "name": "cache-aware",
    "arguments": {"heavy_load_per_worker": 2.0, "max_copies": 0},
    "source": "ours: AWS documents MME routing only qualitatively (SageMaker Developer Guide, 'How multi-model "
              "endpoints work': requests go to an instance that has the model loaded; a model under heavy load "
              "gets more copies)",
}


def worker_autoscaling(server_kind):
    if server_kind == "djl":
        return {"name": "djl-wlm", "source": "DJL Serving 0.23.0's WorkLoadManager, as the server runs it"}
    return {"name": "mms-static", "source": "Multi Model Server's static worker pool, as the server runs it"}


def blog(server_kind, pattern):
    what, tasks, script = PATTERNS[pattern]
    server = djl_server(600) if server_kind == "djl" else mms_server()
    label = "DJL Serving 0.23.0 (workers scale per model)" if server_kind == "djl" else \
        "Multi Model Server (static workers, one per vCPU per model) for comparison"
    return {
        "$schema": "schema/inference.schema.json",
        "schema_version": SCHEMA_VERSION,
        "kind": "inference",
        "name": f"mme-{server_kind}-blog-{pattern}",
        "description": f"{BLOG}: 1,000 copies of a scikit-learn model behind one SageMaker multi-model endpoint "
                       f"of 20 x ml.c5d.18xlarge, served by {label}; Locust load of ~1,500 requests/s for one "
                       f"hour, {what}.",
        "seed": 1,
        "server": server,
        "endpoint": endpoint("ml.c5d.18xlarge", 20) | {
            "source": "20 x ml.c5d.18xlarge, one production variant (" + BLOG_REPO + "/sklearn-djl-mme-repro.ipynb: "
                      "InstanceType ml.c5d.18xlarge, InitialInstanceCount 20); no autoscaling in the blog"},
        "policies": {"autoscaling": worker_autoscaling(server_kind), "routing": ROUTING},
        "models": SKLEARN_MODELS,
        "traffic": locust(tasks, script),
        "output": OUTPUT,
        "slo": SLO,
    }


AZURE_TRACE = "${MLTWIN_DATA}/inference/azure-functions-2019-1k"


def azure():
    instance_scaling = {
        "name": "target-tracking",
        "arguments": {
            "metric": "SageMakerVariantInvocationsPerInstance",
            "target_value": 450,
            "scale_out_cooldown": "300s",
            "scale_in_cooldown": "300s",
            "scale_out_datapoints": 3,
            "scale_in_datapoints": 15,
            "scale_in_ratio": 0.9,
            "disable_scale_in": False,
        },
        "source": "target: SageMaker Developer Guide, 'Load testing your auto scaling configuration': "
                  "InvocationsPerInstance = MAX_RPS x SAFETY_FACTOR (0.5) x 60, with MAX_RPS per instance = 72 "
                  "vCPUs / 4.77 s (the trace's invocation-weighted mean service time after the clamps below) "
                  "= 15 -> 450 per minute; cooldowns: 300 s, the Application Auto Scaling default for "
                  "SageMaker variants (Application Auto Scaling User Guide, 'Target tracking scaling "
                  "policies' / 'Define cooldown periods'); alarms: target tracking's high alarm on 3 "
                  "consecutive 1-minute datapoints above target, low alarm on 15 below 90 % of it (same guide, "
                  "the alarms target tracking creates)",
    }
    return {
        "$schema": "schema/inference.schema.json",
        "schema_version": SCHEMA_VERSION,
        "kind": "inference",
        "name": "mme-azure-functions",
        "description": "The Azure Functions 2019 trace (1,000 functions, one day, 608,228 invocations) replayed "
                       "against one SageMaker multi-model endpoint of ml.c5d.18xlarge served by DJL Serving 0.23.0 "
                       "with DJL's defaults: function i is model i; instances autoscale by target tracking on "
                       "InvocationsPerInstance.",
        "seed": 1,
        "server": djl_server(None),
        "endpoint": endpoint("ml.c5d.18xlarge", 2, 1, 20) | {
            "source": "ml.c5d.18xlarge as in the blog; 2 instances to start, 1..20 under target tracking (ours)"},
        "policies": {"autoscaling": worker_autoscaling("djl"), "routing": ROUTING, "instance_scaling": instance_scaling},
        "models": {
            "azure_functions": {
                "trace": AZURE_TRACE,
                "name_prefix": "fn-",
                "service_time": {
                    "distribution": "exponential",
                    "minimum": "1ms",
                    "maximum": "60s",
                    "batch_marginal": 1.0,
                    "source": "mean = the function's Average execution time (1000_run.csv, ms), exponential "
                              "(ours: the trace gives only percentiles of per-interval averages); floor 1 ms (44 "
                              "functions have Average 0, the trace rounds to ms); cap 60 s, the longest a "
                              "SageMaker real-time invocation may take (SageMaker API Reference, InvokeEndpoint: "
                              "the container must respond within 60 seconds)",
                },
                "resident_scale": 1.0,
                "artifact_size": {
                    "fraction_of_resident": 0.5,
                    "source": "ours: the trace has no artifact sizes; half the resident size (a serialized "
                              "model is smaller than the process holding it)",
                },
                "source": "Azure Functions 2019 trace, 1k sample (Shahrad et al., USENIX ATC'20; "
                          "Azure/AzurePublicDataset, CC-BY 4.0; vhive-serverless/invitro, MIT): resident size per "
                          "worker = the app's AverageAllocatedMb (1000_mem.csv) in MiB",
            }
        },
        "traffic": {
            "trace": {
                "time_scale": 1.0,
                "first_minute": 0,
                "minutes": 1440,
                "source": "the whole day of 1000_inv.csv, in real time; arrivals uniform at random within "
                          "each minute",
            }
        },
        "output": OUTPUT,
        "slo": {"p99_model_latency": "60s", "max_5xx_ratio": 0.01,
                "source": "ours: the functions' own run times reach the 60 s cap, so the SLO is on errors"},
    }


def main():
    for kind in ("djl", "mms"):
        for pattern in PATTERNS:
            write(f"mme-{kind}-blog-{pattern}", blog(kind, pattern))
    write("mme-azure-functions", azure())


if __name__ == "__main__":
    main()
