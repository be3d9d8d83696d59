"""Real REAPI servers on 127.0.0.1 for tests: started on free ports, waited
for, and stopped by PID (bounded in time; stopped on failure too).

RemoteWorker is Bazel's own remote execution + CAS + action cache server
(`src/tools/remote` of Bazel's sources, from Debian's bazel-bootstrap-source
package, which tools/bazelw installs). It is compiled here with javac against
Bazel's own jars, with two changes: it binds 127.0.0.1 instead of every
interface, and it reports each action's phases (inputs staged, run, outputs
uploaded) as executors do, where upstream reports the run alone. It runs
actions with the tools of this machine, so a CUDA action is hermetic only if
its toolkit comes in as action inputs, which it does.
"""

import glob
import os
import re
import shutil
import signal
import subprocess

from tests.common import ports
from tests.common.ports import free_port

BAZEL_SOURCES = os.environ.get("BAZEL_BOOTSTRAP_SOURCE", "/usr/src/bazel-bootstrap")
BAZEL_SHARE = "/usr/share/bazel"
_WORKER = "src/tools/remote/src/main/java/com/google/devtools/build/remote/worker"


class FixtureError(RuntimeError):
    pass


def wait_for_port(port, proc, timeout_s=60.0):
    ports.wait_for_port(port, proc, error=FixtureError, timeout_s=timeout_s)


def _classpath():
    jars = [os.path.join(BAZEL_SHARE, "A-server.jar")]
    with open(os.path.join(BAZEL_SHARE, "bazel_classpath_debian_depends.txt")) as f:
        for entry in re.split(r"[:\s]+", f.read()):
            if entry and os.path.exists(entry):  # a few listed jars are not shipped
                jars.append(entry)
    return ":".join(jars)


# RemoteWorker's ExecutionServer, changed to report each action's phases as an
# executor does (ExecutedActionMetadata: worker start, inputs staged, run,
# outputs uploaded, worker done). Upstream stamps the command's run alone (as the
# worker's start and end too) and names no worker, so Bazel records no remote
# setup or upload time for it. Each pair is (upstream's text, ours).
_PHASE_STAMPS = (
    ("""      throws IOException, InterruptedException, StatusException {
    Command command;
""", """      throws IOException, InterruptedException, StatusException {
    Instant workerStart = Instant.now();
    Command command;
"""),
    ("""    Path workingDirectory = execRoot.getRelative(command.getWorkingDirectory());
""", """    Instant inputsStaged = Instant.now();
    Path workingDirectory = execRoot.getRelative(command.getWorkingDirectory());
"""),
    ("""      ActionResult result = null;
      try {
        UploadManifest manifest =""", """      ActionResult result = null;
      Instant uploadStart = Instant.now();
      try {
        UploadManifest manifest ="""),
    ("""      if (result == null) {
        result = ActionResult.newBuilder().setExitCode(exitCode).build();
      }
""", """      if (result == null) {
        result = ActionResult.newBuilder().setExitCode(exitCode).build();
      }
      {
        Instant uploaded = Instant.now();
        ActionResult.Builder stamped = result.toBuilder();
        stamped.getExecutionMetadataBuilder()
            .setWorker("RemoteWorker")
            .setQueuedTimestamp(com.google.protobuf.util.Timestamps.fromMillis(workerStart.toEpochMilli()))
            .setWorkerStartTimestamp(com.google.protobuf.util.Timestamps.fromMillis(workerStart.toEpochMilli()))
            .setInputFetchStartTimestamp(com.google.protobuf.util.Timestamps.fromMillis(workerStart.toEpochMilli()))
            .setInputFetchCompletedTimestamp(com.google.protobuf.util.Timestamps.fromMillis(inputsStaged.toEpochMilli()))
            .setOutputUploadStartTimestamp(com.google.protobuf.util.Timestamps.fromMillis(uploadStart.toEpochMilli()))
            .setOutputUploadCompletedTimestamp(com.google.protobuf.util.Timestamps.fromMillis(uploaded.toEpochMilli()))
            .setWorkerCompletedTimestamp(com.google.protobuf.util.Timestamps.fromMillis(uploaded.toEpochMilli()));
        result = stamped.build();
      }
"""),
)


# RemoteWorker listens on loopback only (upstream binds every interface).
_LOOPBACK = (
    ("NettyServerBuilder.forPort(workerOptions.listenPort)",
     'NettyServerBuilder.forAddress(new java.net.InetSocketAddress("127.0.0.1", workerOptions.listenPort))'),
    ("b.bind(remoteWorkerOptions.httpListenPort)", 'b.bind("127.0.0.1", remoteWorkerOptions.httpListenPort)'),
)

# Source file name -> (what the change is for, its (upstream's text, ours) pairs).
_PATCHES = {
    "RemoteWorker.java": ("make it bind 127.0.0.1 only", _LOOPBACK),
    "ExecutionServer.java": ("make RemoteWorker report its phases", _PHASE_STAMPS),
}


def _patch(path, text):
    """text with this module's changes to the source file at path; each upstream text must occur once."""
    what, pairs = _PATCHES.get(os.path.basename(path), (None, ()))
    for upstream, ours in pairs:
        if text.count(upstream) != 1:
            raise FixtureError("%s changed: cannot %s (expected once: %r)" % (
                os.path.basename(path), what, upstream.strip().splitlines()[0]))
        text = text.replace(upstream, ours)
    return text


def build_remote_worker(out_dir):
    """Compiles RemoteWorker into out_dir/classes; returns (classes dir, classpath)."""
    worker = os.path.join(BAZEL_SOURCES, _WORKER)
    if not os.path.isdir(worker) or not shutil.which("javac"):
        raise FixtureError(
            "Bazel's RemoteWorker sources (%s) or javac are missing: this test needs Debian's "
            "bazel-bootstrap-source package and a JDK (tools/bazelw's root filesystem has both)" % worker)
    src_dir = os.path.join(out_dir, "src")
    classes = os.path.join(out_dir, "classes")
    os.makedirs(classes, exist_ok=True)
    sources = []
    for path in glob.glob(os.path.join(worker, "**", "*.java"), recursive=True) + [
        os.path.join(BAZEL_SOURCES, "tools/java/runfiles", name) for name in ("Runfiles.java", "Util.java")
    ]:
        with open(path) as f:
            text = f.read()
        text = _patch(path, text)
        dest = os.path.join(src_dir, os.path.relpath(path, BAZEL_SOURCES))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "w") as f:
            f.write(text)
        sources.append(dest)
    cp = _classpath()
    proc = subprocess.run(["javac", "-proc:none", "-nowarn", "-d", classes, "-cp", cp] + sources,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise FixtureError("javac RemoteWorker failed:\n" + proc.stderr[-4000:])
    return classes, cp


def processes_in(output_base, names):
    """PIDs of processes named `names` (e.g. cicc, ptxas) whose working directory is in `output_base`."""
    base = os.path.realpath(output_base) + "/"
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/comm" % entry) as f:
                comm = f.read().strip()
            if comm in names and os.readlink("/proc/%s/cwd" % entry).startswith(base):
                pids.append(int(entry))
        except OSError:
            continue
    return pids


class _Server:
    """A server process of ours: its loopback address, and stopping it by PID."""

    port = None
    proc = None

    @property
    def address(self):
        return "grpc://127.0.0.1:%d" % self.port

    def _launch(self, args, log_path, env=None):
        with open(log_path, "ab") as log:  # the child keeps its own copy of the descriptor
            self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            wait_for_port(self.port, self.proc)
        except FixtureError:
            self.stop()
            raise
        return self

    def stop(self, timeout_s=20.0):
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=timeout_s)


class RemoteWorker(_Server):
    """Bazel's RemoteWorker: CAS, action cache and (optionally) execution."""

    def __init__(self, root, jobs=2, execution=True, prefix=()):
        self.root = root
        self.jobs = jobs
        self.execution = execution
        # A command the server runs under (e.g. a mount namespace without the machine's compilers).
        self.prefix = list(prefix)
        self.cas_path = os.path.join(root, "cas")
        self.log_path = os.path.join(root, "worker.log")

    def start(self, classes, classpath, port=None):
        """Starts the server on a free port, or on `port` (a restart where clients expect it)."""
        os.makedirs(self.cas_path, exist_ok=True)
        work = os.path.join(self.root, "work")
        os.makedirs(work, exist_ok=True)
        runfiles = os.path.join(self.root, "runfiles")
        os.makedirs(runfiles, exist_ok=True)
        self.port = port or free_port()
        args = self.prefix + [
            "java", "-cp", classes + ":" + classpath,
            "com.google.devtools.build.remote.worker.RemoteWorker",
            "--listen_port=%d" % self.port,
            "--cas_path=" + self.cas_path,
            "--pid_file=" + os.path.join(self.root, "pid"),
        ]
        if self.execution:
            args += ["--work_path=" + work, "--jobs=%d" % self.jobs]
        return self._launch(args, self.log_path, env=dict(os.environ, RUNFILES_DIR=runfiles))

    def blobs(self):
        """Paths of the CAS blobs on disk."""
        return [p for p in glob.glob(os.path.join(self.cas_path, "**"), recursive=True) if os.path.isfile(p)]


BUILDGRID_VERSION = "0.9.1"

_BUILDGRID_CONFIG = """\
# A cache-only BuildGrid on loopback: CAS, ByteStream and an action cache.
server:
  - !channel
    address: "127.0.0.1:{port}"
    insecure-mode: true
authorization:
  method: none
monitoring:
  enabled: false
storages:
  - !disk-storage &main-storage
    path: {cas}
caches:
  - !lru-action-cache &main-action
    storage: *main-storage
    max-cached-refs: 100000
    allow-updates: true
instances:
  - name: ""
    services:
      - !action-cache
        cache: *main-action
      - !cas
        storage: *main-storage
      - !bytestream
        storage: *main-storage
"""


def install_buildgrid(venv):
    """Installs BuildGrid (PyPI, needs Python >= 3.13) into a virtualenv; returns its bgd."""
    bgd = os.path.join(venv, "bin", "bgd")
    if os.path.exists(bgd):
        return bgd
    proc = subprocess.run(["python3", "-m", "venv", venv], capture_output=True, text=True)
    if proc.returncode != 0:
        raise FixtureError("python3 -m venv failed (python3-venv missing?):\n" + proc.stderr[-2000:])
    proc = subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", "buildgrid==" + BUILDGRID_VERSION],
                          capture_output=True, text=True, env=dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1"))
    if proc.returncode != 0:
        raise FixtureError("pip install buildgrid==%s failed:\n%s" % (BUILDGRID_VERSION, proc.stderr[-3000:]))
    return bgd


class BuildGridCache(_Server):
    """BuildGrid serving CAS + action cache (no execution) from a disk CAS."""

    def __init__(self, root, bgd):
        self.root = root
        self.bgd = bgd

    def start(self):
        cas = os.path.join(self.root, "cas")
        os.makedirs(cas, exist_ok=True)
        self.port = free_port()
        config = os.path.join(self.root, "cache.yml")
        with open(config, "w") as f:
            f.write(_BUILDGRID_CONFIG.format(port=self.port, cas=cas))
        lint = subprocess.run([self.bgd, "server", "lint", config], capture_output=True, text=True)
        if lint.returncode != 0:
            raise FixtureError("bgd server lint %s:\n%s" % (config, lint.stdout + lint.stderr))
        return self._launch([self.bgd, "server", "start", "--pid-file", os.path.join(self.root, "pid"), config],
                            os.path.join(self.root, "buildgrid.log"))
