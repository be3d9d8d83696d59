"""Checkouts of this repository built with a nested Bazel, for end-to-end tests.

Each Checkout is a copy of the working tree at its own absolute path with its
own output base, so two of them stand for two machines (CI, a developer).
"""

import hashlib
import os
import shutil
import stat
import subprocess
import sys
import time
import unittest

from runfiles import runfiles

CUDA_OUTPUT_SUFFIXES = (".ii", ".cpp", ".ptx", ".ltoir", ".cubin", ".fatbin", ".c", ".o", ".module_id", ".sh")
TOOLKIT = os.environ.get("CUDA_TOOLKIT", "13.0")


def main():
    """unittest.main(), then this test's nested workspaces removed.

    Each nested build leaves an output base of 0.3-1 GB under TEST_TMPDIR,
    which Bazel keeps until the test runs again; a suite of these tests would
    hold ~9 GB of them after a CI run. The tests shut their Bazel servers down
    in tearDownClass; this removes what is left. Run with
    --test_env=KEEP_TEST_TMPDIR=1 to keep them for a look after a failure.
    """
    program = unittest.main(exit=False)
    if not os.environ.get("KEEP_TEST_TMPDIR"):
        remove_tree_contents(os.environ["TEST_TMPDIR"])
    sys.exit(0 if program.result.wasSuccessful() else 1)


def shut_down(*checkouts):
    """Stops each checkout's Bazel server (a test's clean-up): one that cannot be stopped does not keep the others up."""
    for checkout in checkouts:
        try:
            checkout.bazel("shutdown")
        except AssertionError:
            pass


def remove_tree_contents(root):
    """Deletes everything under root, Bazel's read-only outputs included."""

    def writable_then_retry(function, path, _):
        os.chmod(os.path.dirname(path), stat.S_IRWXU)
        if os.path.isdir(path) and not os.path.islink(path):
            os.chmod(path, stat.S_IRWXU)
        function(path)

    for name in os.listdir(root):
        path = os.path.join(root, name)
        if os.path.isdir(path) and not os.path.islink(path):
            for parent, dirs, _ in os.walk(path):
                for d in dirs:
                    full = os.path.join(parent, d)
                    if not os.path.islink(full):
                        os.chmod(full, stat.S_IRWXU)
            shutil.rmtree(path, onerror=writable_then_retry)
        else:
            os.unlink(path)


def _source_workspace():
    marker = runfiles.Create().Rlocation("rules_cuda_stages/MODULE.bazel")
    return os.path.dirname(os.path.realpath(marker))


def _bazel():
    path = os.environ.get("BAZEL") or shutil.which("bazel")
    if not path:
        raise AssertionError("this test runs Bazel itself: put bazel on PATH or set --test_env=BAZEL=/path/to/bazel")
    return path


def source_workspace():
    """The checkout under test (this repository's root on disk)."""
    return _source_workspace()


def bazel_binary():
    """The Bazel that nested builds run (BAZEL, or bazel on PATH)."""
    return _bazel()


def offline_flags():
    """["--config=offline"] under Debian's offline Bazel (tools/bazelw's chroot), else []."""
    return _offline_flags()


def shared_repository_cache():
    """The repository cache of the Bazel running this test, when it is Bazel's default one.

    Nested builds that use it find the toolkit wheels already downloaded. The
    default cache is <output_user_root>/cache/repos/v1, and a test runs inside
    <output_user_root>/<hash>/execroot/. Falls back to a cache of this test's
    own (downloads everything once) when the test does not run there.
    """
    here = os.path.realpath(os.getcwd())
    if "/execroot/" in here:
        cache = os.path.join(os.path.dirname(here.split("/execroot/")[0]), "cache", "repos", "v1")
        if os.path.isdir(cache):
            return cache
    return os.path.join(os.environ["TEST_TMPDIR"], "repository_cache")


def _toolkit_flags():
    # A hermetic toolkit (NVIDIA's wheels, fetched by each nested build into
    # its own output base through one repository cache).
    return ["--//cuda_rules:toolkit=" + TOOLKIT]


def _offline_flags():
    # Debian's offline Bazel (tools/bazelw's chroot) needs the project's
    # --config=offline; a Bazel with registry access does not.
    try:
        with open("/etc/bazel/bazelrc") as f:
            return ["--config=offline"] if "--override_module=rules_cc" in f.read() else []
    except OSError:
        return []


class Checkout:
    """A copy of the working tree at <root>/<name>/rules_cuda_stages, built with its own output base."""

    def __init__(self, root, name, repository_cache=None):
        """repository_cache: where its builds download to; default the outer Bazel's (shared_repository_cache()).

        Sharing it means each toolkit's archives are downloaded once per
        machine, not once per test (CUDA 12.4's Debian packages are 1.8 GB); a
        test that must see its own downloads (which URLs were asked for, what
        landed in the cache) passes a directory of its own.
        """
        self.name = name
        self.repository_cache = repository_cache or shared_repository_cache()
        self.dir = os.path.join(root, name, "rules_cuda_stages")
        self.output_base = os.path.join(root, name + ".output_base")
        # A command every Bazel command of this checkout runs under (e.g. one
        # that mounts another compiler first): its server starts under it too.
        self.prefix = []
        shutil.copytree(
            _source_workspace(),
            self.dir,
            symlinks=True,
            ignore=shutil.ignore_patterns("bazel-*", ".git", "user.bazelrc", ".exec*.json", "MODULE.bazel.lock"),
        )

    def bazel_fails(self, *args):
        """Runs a build that must fail; returns its stderr."""
        try:
            self.bazel(*args)
        except AssertionError as e:
            return str(e)
        raise AssertionError("`bazel %s` succeeded, but it must fail" % " ".join(args))

    def startup(self):
        """Bazel and the startup options of this checkout's commands (for a tool that runs Bazel itself)."""
        return [_bazel(), "--output_base=" + self.output_base]

    def command_flags(self):
        """The flags this checkout gives every build-like command (build, run, aquery)."""
        return _offline_flags() + _toolkit_flags() + [
            "--repository_cache=" + self.repository_cache,
            "--noshow_progress",
        ]

    def _command(self, args, startup=()):
        tmp = os.environ["TEST_TMPDIR"]
        cmd = self.prefix + self.startup() + [*startup, args[0]]
        if args[0] != "clean" and args[0] != "shutdown" and args[0] != "info":
            cmd += self.command_flags()
        elif args[0] == "info":
            cmd += _offline_flags() + _toolkit_flags()
        cmd += list(args[1:])
        return cmd, dict(os.environ, HOME=tmp)

    def _run(self, cmd, env):
        """Runs one Bazel command; its wall time goes to the test's log (where a slow test spends its time)."""
        start = time.monotonic()
        proc = subprocess.run(cmd, cwd=self.dir, env=env, capture_output=True, text=True)
        shown = " ".join(a for a in cmd[len(self.prefix) + 2:] if not a.startswith(("--repository_cache=", "--noshow_progress", "--config=offline")))
        print("[checkout %s] %.1f s, exit %d: bazel %s" % (self.name, time.monotonic() - start, proc.returncode, shown[:300]),
              file=sys.stderr, flush=True)
        return proc

    def bazel(self, *args, startup=()):
        """Runs Bazel in this checkout; returns stdout, raises AssertionError on failure."""
        cmd, env = self._command(args, startup)
        proc = self._run(cmd, env)
        if proc.returncode != 0:
            raise AssertionError("`%s` failed:\n%s" % (" ".join(cmd), proc.stderr[-6000:]))
        return proc.stdout

    def bazel_result(self, *args):
        """Runs Bazel in this checkout; returns (exit code, stdout, stderr), whatever the exit code."""
        cmd, env = self._command(args)
        proc = self._run(cmd, env)
        return proc.returncode, proc.stdout, proc.stderr

    def bazel_stderr(self, *args):
        """Runs Bazel in this checkout; returns its stderr (Bazel's messages), raises AssertionError on failure."""
        cmd, env = self._command(args)
        proc = self._run(cmd, env)
        if proc.returncode != 0:
            raise AssertionError("`%s` failed:\n%s" % (" ".join(cmd), proc.stderr[-6000:]))
        return proc.stderr

    def plan_scripts(self):
        """{path relative to bazel-bin: text} of every stage script (plan/*.sh) under bazel-bin."""
        bin_dir = self.bazel("info", "bazel-bin").strip()
        out = {}
        for dirpath, _, files in os.walk(bin_dir):
            if os.path.basename(dirpath) != "plan":
                continue
            for name in files:
                if name.endswith(".sh"):
                    path = os.path.join(dirpath, name)
                    with open(path) as f:
                        out[os.path.relpath(path, bin_dir)] = f.read()
        return out

    def native_repo_fetched(self):
        """Whether @cuda_native_archs (GPU detection, --//cuda_rules:archs=native) was fetched."""
        external = os.path.join(self.output_base, "external")
        return any(name.endswith("cuda_native_archs") for name in os.listdir(external)) if os.path.isdir(external) else False

    def start(self, *args):
        """Starts Bazel in the background; returns the Popen (stdout+stderr piped, text)."""
        cmd, env = self._command(args)
        return subprocess.Popen(cmd, cwd=self.dir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def file(self, path):
        """Bytes of a file under bazel-bin."""
        with open(os.path.join(self.bazel("info", "bazel-bin").strip(), path), "rb") as f:
            return f.read()

    def cuda_outputs(self, *flags):
        """{path relative to bazel-bin: sha256} of every stage output (compiles, cuda_objects' rdc ones, device links).

        flags: the build's options that name its output directory (Starlark
        flags such as --//cuda_rules:archs=sm_90), for `bazel info bazel-bin`.
        """
        bin_dir = self.bazel("info", *flags, "bazel-bin").strip()
        out = {}
        for dirpath, _, files in os.walk(bin_dir):
            if not any(d in dirpath + "/" for d in ("/_cuda/", "/_cuda_rdc/", "/_cuda_dlink/")):
                continue
            for name in files:
                if name.endswith(CUDA_OUTPUT_SUFFIXES):
                    path = os.path.join(dirpath, name)
                    with open(path, "rb") as f:
                        out[os.path.relpath(path, bin_dir)] = hashlib.sha256(f.read()).hexdigest()
        return out
