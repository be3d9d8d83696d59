#!/usr/bin/env bash
# Regenerates execlog_pb2.py from execlog.proto with protoc from PyPI's
# grpcio-tools (in a throwaway virtualenv). The generated file is checked in,
# so builds need no protoc.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
venv="$(mktemp -d)"
trap 'rm -rf "$venv"' EXIT
python3 -m venv "$venv"
"$venv/bin/pip" install -q "grpcio-tools==1.85.1"
"$venv/bin/python" -m grpc_tools.protoc -I. --python_out=. execlog.proto
echo "regenerated $(pwd)/execlog_pb2.py"
