"""A real multi-worker REAPI executor on 127.0.0.1: BuildGrid + N buildbox bots.

- BuildGrid 0.9.1 (PyPI; Python >= 3.13) serves CAS, ByteStream, action
  cache and Execution; its scheduler keeps jobs in PostgreSQL (BuildGrid
  refuses SQLite for it).
- PostgreSQL and buildbox (buildbox-casd, buildbox-worker,
  buildbox-run-hosttools) come from the system's Debian packages: the missing
  ones are downloaded with `apt-get download` and unpacked with `dpkg-deb -x`
  into a cache directory, so nothing is installed on the system (Debian testing
  has `buildbox`; tools/bazelw's root filesystem is Debian testing).
- Each bot is a buildbox-casd (its local CAS, backed by BuildGrid's) and a
  buildbox-worker taking one job at a time, both pinned to one core with
  `taskset`, so a job and everything it starts runs on that core.

Every server binds 127.0.0.1 only and is stopped by PID (process group).
PostgreSQL refuses to run as root: as root it runs as `nobody`, with its files
in a directory of its own under /tmp.
"""

import contextlib
import glob
import grp
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from tests.common import ports
from tests.common.ports import free_port

BUILDGRID_VERSION = "0.9.1"
DEBIAN_PACKAGES = ("buildbox", "postgresql")
DEFAULT_CACHE_DIR = "/var/tmp/rules_cuda_stages_rbe"  # readable by `nobody` (PostgreSQL), unlike /root

_CONFIG = """\
# BuildGrid with execution on loopback (written by bench/scaleout_bench/rbe_cluster.py).
server:
  - !channel
    address: "127.0.0.1:{port}"
    insecure-mode: true
authorization:
  method: none
monitoring:
  enabled: false
# Bazel uploads many blobs at once; the defaults (5 threads per core) refuse some.
thread-pool-size: 64
maximum-concurrent-rpcs: 512
connections:
  - !sql-connection &sql
    connection-string: postgresql://{user}@127.0.0.1:{db_port}/postgres
    pool-size: 10
    max-overflow: 20
storages:
  - !disk-storage &main-storage
    path: {cas}
caches:
  - !lru-action-cache &main-action
    storage: *main-storage
    max-cached-refs: 100000
    allow-updates: true
    cache-failed-actions: false
schedulers:
  - !sql-scheduler &state-database
    sql: *sql
    action-cache: *main-action
    storage: *main-storage
    # Hand queued jobs to idle bots every 50 ms (the default is every second).
    poll-interval: 0.05
    bot-poll-interval: 0.05
    job-assignment-interval: 0.05
    property-set: !dynamic-property-set
      match-property-keys: []
      wildcard-property-keys: []
instances:
  - name: ""
    services:
      - !action-cache
        cache: *main-action
      - !execution
        scheduler: *state-database
      - !cas
        storage: *main-storage
      - !bytestream
        storage: *main-storage
"""


class ClusterError(RuntimeError):
    pass


def pinned(cores):
    """The prefix that runs a command (and what it starts) on `cores` only; none: anywhere."""
    return ["taskset", "-c", ",".join(str(c) for c in cores)] if cores else []


def _wait_for_port(port, proc, what, timeout_s=60.0):
    ports.wait_for_port(port, proc, what=what, error=ClusterError, timeout_s=timeout_s)


def _run(cmd, what, **kwargs):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if proc.returncode != 0:
        raise ClusterError("%s failed (exit %d): %s\n%s" % (what, proc.returncode, " ".join(cmd),
                                                             (proc.stdout + proc.stderr)[-3000:]))
    return proc.stdout


def _missing_packages(packages):
    """The packages (and dependencies) `apt-get install` would add to this system, from a simulation."""
    out = _run(["apt-get", "-s", "-o", "Debug::NoLocking=1", "install", "--no-install-recommends", *packages],
               "apt-get -s install (Debian packages %s)" % ", ".join(packages))
    return sorted(line.split()[1] for line in out.splitlines() if line.startswith("Inst "))


def install(cache_dir=DEFAULT_CACHE_DIR):
    """Unpacks the Debian packages and installs BuildGrid into cache_dir (once); returns (prefix, bgd)."""
    if not shutil.which("apt-get") or not shutil.which("dpkg-deb"):
        raise ClusterError("this executor needs apt-get and dpkg-deb (a Debian-like system with the `buildbox` "
                           "package, e.g. Debian testing: tools/bazelw's root filesystem)")
    os.makedirs(cache_dir, exist_ok=True)
    os.chmod(cache_dir, 0o755)
    prefix = os.path.join(cache_dir, "prefix")
    stamp = os.path.join(prefix, ".unpacked")
    if not os.path.exists(stamp):
        shutil.rmtree(prefix, ignore_errors=True)
        debs = os.path.join(cache_dir, "debs")
        shutil.rmtree(debs, ignore_errors=True)
        os.makedirs(debs)
        packages = _missing_packages(DEBIAN_PACKAGES)
        if packages:
            _run(["apt-get", "download", "-o", "Acquire::Check-Valid-Until=false", *packages],
                 "apt-get download", cwd=debs)
        for deb in sorted(glob.glob(os.path.join(debs, "*.deb"))):
            _run(["dpkg-deb", "-x", deb, prefix], "dpkg-deb -x " + os.path.basename(deb))
        os.makedirs(prefix, exist_ok=True)
        with open(stamp, "w") as f:
            f.write("\n".join(packages) + "\n")
    venv = os.path.join(cache_dir, "buildgrid-venv")
    bgd = os.path.join(venv, "bin", "bgd")
    if not os.path.exists(bgd):
        if sys.version_info < (3, 13) and not shutil.which("python3.13") and not shutil.which("python3.14"):
            raise ClusterError("BuildGrid %s needs Python >= 3.13" % BUILDGRID_VERSION)
        _run(["python3", "-m", "venv", venv], "python3 -m venv")
        _run([os.path.join(venv, "bin", "pip"), "install", "-q", "buildgrid==" + BUILDGRID_VERSION],
             "pip install buildgrid==" + BUILDGRID_VERSION, env=dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1"))
    return prefix, bgd


def _find(prefix, pattern, what):
    for root in (prefix, "/"):
        hits = sorted(glob.glob(os.path.join(root, pattern)))
        if hits:
            return hits[-1]
    raise ClusterError("%s not found (%s) under %s or the system" % (what, pattern, prefix))


class Cluster:
    """PostgreSQL + BuildGrid (execution) + bots; `address` is the --remote_executor."""

    timestamps = True  # the bots report each action's worker timestamps (input staging, run, output upload)
    metadata = True  # and BuildGrid keeps them, with its own (assigned, reported): action_metadata()

    def __init__(self, root, prefix, bgd):
        self.root = root
        self.prefix = prefix
        self.bgd = bgd
        libdirs = glob.glob(os.path.join(prefix, "usr", "lib", "*-linux-gnu"))
        self.env = dict(os.environ, LD_LIBRARY_PATH=":".join(libdirs + [os.environ.get("LD_LIBRARY_PATH", "")]))
        self.pg_bin = os.path.dirname(_find(prefix, "usr/lib/postgresql/*/bin/postgres", "PostgreSQL"))
        self.bin = os.path.dirname(_find(prefix, "usr/bin/buildbox-worker", "buildbox-worker"))
        self.procs = []  # (what, Popen), started by us
        self.bots = []
        self.bot_flags = []  # more buildbox-worker flags, e.g. --verbose (each lease's arrival and start)
        self.port = None
        self.pg_dir = None

    @property
    def address(self):
        return "grpc://127.0.0.1:%d" % self.port

    def _spawn(self, what, cmd, log, env=None):
        with open(log, "ab") as out:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env or self.env,
                                    start_new_session=True)
        self.procs.append((what, proc))
        return proc

    def _as_db_user(self, cmd):
        if os.getuid() != 0:
            return cmd
        return ["setpriv", "--reuid=nobody", "--regid=" + grp.getgrgid(pwd.getpwnam("nobody").pw_gid).gr_name,
                "--clear-groups", "env", "LD_LIBRARY_PATH=" + self.env["LD_LIBRARY_PATH"], *cmd]

    def start(self, server_cores=None):
        """Starts PostgreSQL and BuildGrid, pinned to server_cores (a list) if given: the bots'
        cores then run nothing else of the cluster's, as on an executor machine of their own."""
        pin = pinned(server_cores)
        os.makedirs(self.root, exist_ok=True)
        # PostgreSQL, as `nobody` when we are root (it refuses root), in a directory it owns.
        self.pg_dir = tempfile.mkdtemp(prefix="rules_cuda_stages_pg_", dir="/tmp")
        if os.getuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(self.pg_dir, nobody.pw_uid, nobody.pw_gid)
        user = "bgd"
        data = os.path.join(self.pg_dir, "data")
        _run(self._as_db_user([os.path.join(self.pg_bin, "initdb"), "-D", data, "-U", user, "--auth=trust",
                               "-E", "UTF8", "--no-locale"]), "initdb", env=self.env)
        db_port = free_port()
        self.db = self._spawn("postgres", pin + self._as_db_user([
            os.path.join(self.pg_bin, "postgres"), "-D", data, "-h", "127.0.0.1", "-p", str(db_port),
            "-k", self.pg_dir, "-c", "fsync=off"]), os.path.join(self.root, "postgres.log"))
        _wait_for_port(db_port, self.db, "PostgreSQL")
        connection = "postgresql://%s@127.0.0.1:%d/postgres" % (user, db_port)
        deadline = time.monotonic() + 30
        while True:  # the port answers a little before connections are accepted
            proc = subprocess.run([self.bgd, "migrate", "apply", connection], capture_output=True, text=True)
            if proc.returncode == 0:
                break
            if time.monotonic() > deadline:
                raise ClusterError("bgd migrate apply failed:\n" + (proc.stdout + proc.stderr)[-3000:])
            time.sleep(0.5)
        # BuildGrid.
        self.port = free_port()
        cas = os.path.join(self.root, "cas")
        os.makedirs(cas, exist_ok=True)
        config = os.path.join(self.root, "buildgrid.yml")
        with open(config, "w") as f:
            f.write(_CONFIG.format(port=self.port, user=user, db_port=db_port, cas=cas))
        _run([self.bgd, "server", "lint", config], "bgd server lint")
        proc = self._spawn("BuildGrid", pin + [self.bgd, "server", "start", config], os.path.join(self.root, "buildgrid.log"))
        _wait_for_port(self.port, proc, "BuildGrid")
        return self

    def action_metadata(self, digests):
        """{action hash: its ExecutedActionMetadata's timestamps} from BuildGrid's action cache.

        digests: (hash, size_bytes) of the actions (an execution log's). The
        timestamps split each action's time on a bot: BuildGrid's own (the job
        assigned, the result reported) around the bot's (inputs staged, run,
        outputs uploaded): action_metadata.py.
        """
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "action_metadata.py")
        python = os.path.join(os.path.dirname(self.bgd), "python3")
        proc = subprocess.run([python, script, self.address], input=json.dumps([list(d) for d in digests]),
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise ClusterError("action_metadata.py failed (exit %d): %s" % (proc.returncode, proc.stderr[-3000:]))
        return json.loads(proc.stdout)

    def start_bots(self, count, cores=None):
        """Starts `count` bots (one job at a time each), bot i pinned to core cores[i % len(cores)]."""
        cores = cores or sorted(os.sched_getaffinity(0))
        for i in range(count):
            core = cores[i % len(cores)]
            name = "bot%d" % (len(self.bots) + 1)
            home = os.path.join(self.root, name)
            shutil.rmtree(home, ignore_errors=True)
            os.makedirs(os.path.join(home, "cache"))
            sock = os.path.join(home, "casd.sock")
            casd = self._spawn(name + " casd", pinned([core]) + [
                os.path.join(self.bin, "buildbox-casd"),
                "--cas-remote=grpc://127.0.0.1:%d" % self.port, "--bind=unix:" + sock, os.path.join(home, "cache")],
                os.path.join(home, "casd.log"))
            deadline = time.monotonic() + 30
            while not os.path.exists(sock):
                if casd.poll() is not None or time.monotonic() > deadline:
                    raise ClusterError("buildbox-casd of %s did not start: see %s" % (name, os.path.join(home, "casd.log")))
                time.sleep(0.1)
            worker = self._spawn(name + " worker", pinned([core]) + [
                os.path.join(self.bin, "buildbox-worker"),
                "--bots-remote=grpc://127.0.0.1:%d" % self.port, "--cas-remote=unix:" + sock,
                "--buildbox-run=" + os.path.join(self.bin, "buildbox-run-hosttools"),
                "--concurrent-jobs=1", "--platform", "OSFamily=linux", *self.bot_flags, name],
                os.path.join(home, "worker.log"))
            self.bots.append((name, core, casd, worker))
        time.sleep(1.0)  # let the bots open their sessions
        for name, _, casd, worker in self.bots:
            if worker.poll() is not None or casd.poll() is not None:
                raise ClusterError("%s exited at start: see %s" % (name, os.path.join(self.root, name)))

    def stop_bots(self):
        for name, _, casd, worker in self.bots:
            _stop(worker)
            _stop(casd)
        self.bots = []

    def stop(self):
        self.stop_bots()
        for what, proc in reversed(self.procs):
            _stop(proc)
        self.procs = []
        if self.pg_dir:
            shutil.rmtree(self.pg_dir, ignore_errors=True)
            self.pg_dir = None


def _stop(proc, timeout_s=20.0):
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=timeout_s)
