"""A second REAPI executor for the scale-out benchmark: Bazel's own RemoteWorker on 127.0.0.1.

tests/remote/reapi.py compiles it from Debian's bazel-bootstrap-source (which
tools/bazelw's root filesystem has) and runs it. Here it executes with one
job per worker count, the JVM and its actions pinned to that many cores, as
rbe_cluster.Cluster pins one buildbox bot per core; the interface is the
Cluster's (address, start, start_bots, stop_bots, stop).

RemoteWorker reports no ExecutedActionMetadata (no worker timestamps), so an
execution log's times for its actions are the client's, queueing included.
What it spent is at most the build's wall times its jobs (the benchmark
times the execution phase alone): it stages every action's inputs (out of
its disk CAS into a fresh directory), runs it and stores its outputs, one
action per job at a time.
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

    metadata = False  # no worker timestamps: executor time is the build's wall times the jobs

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
