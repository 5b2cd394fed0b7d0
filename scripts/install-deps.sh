#!/usr/bin/env bash
# Installs, idempotently, the Debian packages mltwin needs to build and test.
# Called by `make run` and `make test` (and so by CI). Installs nothing that is already there.
set -euo pipefail
PKGS=(
  cmake g++ make ninja-build pkg-config
  libboost-dev libboost-graph-dev libboost-random-dev   # Boost.Histogram/Accumulators (metrics), Boost.Graph (the fabric topology), Boost.Random (RNG streams)
  libeigen3-dev                            # Eigen (the fabric tests' water-filling reference)
  libsimgrid-dev                           # SimGrid: the fabric benchmark's peer solver (bench/fabric_simgrid.cpp)
  nlohmann-json3-dev libvalijson-dev       # JSON scenarios and their JSON Schema validation
  libsqlite3-dev sqlite3                   # the results store (sqlite3: the CLI, for reading results)
  libfmt-dev libcli11-dev doctest-dev      # formatting, command line, tests
  libfccp-dev                              # Fast C++ CSV Parser (trace readers)
  libhowardhinnant-date-dev                # Howard Hinnant's date: RFC 3339 times of the job history CSV
  libyaml-dev                              # libyaml: a located syntax check before yaml-cpp (io/src/yaml_guard.hpp)
  libyaml-cpp-dev                          # yaml-cpp: the cluster's real configuration (volcano-scheduler ConfigMap, Volcano/eksctl/TorchX manifests)
  # The Python module (bindings/python), for Debian's /usr/bin/python3, and what its tests,
  # notebooks and sweeps use:
  pybind11-dev python3-dev                 # the module itself
  python3-venv python3-setuptools python3-wheel python3-pip   # pip install . into a venv (pyproject.toml)
  python3-numpy python3-pandas python3-scipy   # DataFrames; confidence intervals (scipy.stats)
  python3-distributed                      # Dask sweeps (mltwin.sweep)
  python3-pytest                           # the Python tests
  python3-matplotlib python3-nbclient python3-nbformat python3-ipykernel   # notebooks, run by the tests
  python3-mypy                             # stubgen: type stubs for the compiled module
  # The fuzz targets (tests/fuzz, make test-fuzz): clang with libFuzzer and the sanitizer runtimes.
  clang libclang-rt-14-dev
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
