"""A second REAPI executor for the scale-out benchmark: Bazel's own RemoteWorker on 127.0.0.1.

tests/remote/reapi.py compiles it from Debian's bazel-bootstrap-source (which
tools/bazelw's root filesystem has) and runs it. Here it executes with one
job per worker count, the JVM and its actions pinned to that many cores, as
rbe_cluster.Cluster pins one buildbox bot per core; the interface is the
Cluster's (address, start, start_bots, stop_bots, stop).

RemoteWorker as compiled by tests/remote/reapi.py reports each action's
phases in its ExecutedActionMetadata (upstream's stamps the command's run
alone): its start, inputs staged (out of its disk CAS into a fresh
directory), the run, outputs stored. So Bazel's execution log has the
executor's setup, run and upload times for every action, as with BuildGrid's
bots, and executor-seconds are their sum. The build's wall times its jobs,
which also counts Bazel's own time per action and the time between actions,
is kept beside it as an upper bound. It has no job queue of its own to read
back (action_metadata.py is BuildGrid's), so no per-phase table.
"""

import os
import shutil

from bench.scaleout_bench.rbe_cluster import pinned
from tests.common import ports
from tests.remote import reapi


class _PinnedRemoteWorker(reapi.RemoteWorker):
    """RemoteWorker, the JVM (and so every action it runs) pinned to `cores`."""

    def __init__(self, root, jobs, cores):
        super().__init__(root, jobs=jobs)
        self.cores = cores

    def _launch(self, args, log_path, env=None):
        return super()._launch(pinned(self.cores) + args, log_path, env=env)


class RemoteWorkerCluster:
    """RemoteWorker as the benchmark's executor; `address` is the --remote_executor."""

    timestamps = True  # each action's phases, in Bazel's execution log (reapi.py's stamps)
    metadata = False  # no action metadata to read back from a job queue (BuildGrid's)

    def __init__(self, root):
        self.root = root
        self.worker = None
        self.classes = None
        self.classpath = None
        self.port = None

    @property
    def address(self):
        return "grpc://127.0.0.1:%d" % self.port

    def start(self, server_cores=None):  # one process: it runs the actions itself
        """Compiles the worker and picks its port (every restart listens there)."""
        self.classes, self.classpath = reapi.build_remote_worker(os.path.join(self.root, "build"))
        self.port = ports.free_port()

    def start_bots(self, count, cores=None):
        """Starts the worker afresh (its CAS kept) with `count` jobs on the first `count` cores."""
        cores = (cores or sorted(os.sched_getaffinity(0)))[:count]
        server = os.path.join(self.root, "server")
        shutil.rmtree(os.path.join(server, "work"), ignore_errors=True)
        self.worker = _PinnedRemoteWorker(server, count, cores).start(self.classes, self.classpath, port=self.port)

    def stop_bots(self):
        if self.worker:
            self.worker.stop()

    def stop(self):
        self.stop_bots()
