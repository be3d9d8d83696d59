"""Prints each action's ExecutedActionMetadata from a REAPI action cache, as JSON.

Run with the Python of BuildGrid's virtual environment (rbe_cluster.install),
which has grpcio and REAPI's generated modules; the bench's own Python has
neither. Reads a JSON list of [hash, size_bytes] (action digests) on stdin and
writes {hash: {timestamp name: seconds since the epoch}} for every action the
cache has a result for:

  python3 action_metadata.py grpc://127.0.0.1:PORT < digests.json

BuildGrid writes worker_start_timestamp (when its scheduler assigned the job
to a bot) and worker_completed_timestamp (when the bot's report of the result
reached it) itself; the bot writes the others (input_fetch_*, execution_*,
output_upload_*), so the two together split a bot's time per action into
picking the job up, staging its inputs, running it, uploading its outputs and
reporting back.
"""

import json
import sys

import grpc
from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as re_pb2
from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2_grpc as re_grpc

FIELDS = ("queued", "worker_start", "input_fetch_start", "input_fetch_completed", "execution_start",
          "execution_completed", "output_upload_start", "output_upload_completed", "worker_completed")


def main(argv):
    if len(argv) != 2 or not argv[1].startswith("grpc://"):
        sys.exit("usage: action_metadata.py grpc://HOST:PORT < digests.json")
    stub = re_grpc.ActionCacheStub(grpc.insecure_channel(argv[1][len("grpc://"):]))
    out = {}
    for digest_hash, size in json.load(sys.stdin):
        try:
            result = stub.GetActionResult(re_pb2.GetActionResultRequest(
                instance_name="", action_digest=re_pb2.Digest(hash=digest_hash, size_bytes=int(size))), timeout=30)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.NOT_FOUND:
                continue
            raise
        meta = result.execution_metadata
        out[digest_hash] = {f: getattr(meta, f + "_timestamp").ToNanoseconds() / 1e9 for f in FIELDS}
        out[digest_hash]["worker"] = meta.worker
    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
