#!/usr/bin/env bash
# Installs everything hirace needs on a fresh Debian/Ubuntu machine: the system
# packages (g++, rumur for the Murphi model, graphviz for diagrams, valgrind for
# instruction counts in bench/overhead.py, libxxhash-dev for transfer hashes), a virtual
# environment in .venv, and the package with its test and benchmark extras.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 - <<'PY'
import sys
if sys.version_info < (3, 11):
    sys.exit(f"hirace needs Python 3.11 or newer, found {sys.version.split()[0]}")
PY

need=()
command -v g++ >/dev/null || need+=(g++)
command -v rumur >/dev/null || need+=(rumur)
command -v dot >/dev/null || need+=(graphviz)
command -v valgrind >/dev/null || need+=(valgrind)  # bench/overhead.py counts instructions
# xxhash.h: the XXH3 content hashes of transfers in the host record (hirace_host.h)
[ -f /usr/include/xxhash.h ] || need+=(libxxhash-dev)
if ((${#need[@]})); then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}"
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test,bench,cluster]'
# CUDA's headers, which tests/test_cuda_api.py checks the CUDA API catalogue
# against: the toolkit's where one is installed, else these wheels' (the
# toolkit's version, so that both give the same headers).
if [ ! -f /usr/local/cuda/include/crt/math_functions.h ] && [ -z "${HIRACE_CUDA_INCLUDE:-}" ]; then
  .venv/bin/python -m pip install -q nvidia-cuda-crt==13.0.88 nvidia-cuda-runtime==13.0.96 \
    nvidia-cuda-cccl==13.0.85
fi
