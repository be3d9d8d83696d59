"""The release resolves: dev/release's archive and entry, used from a registry by a fresh consumer.

1. `dev/release <version> <registry>` (this checkout's files; the command a
   release runs from a commit) writes the archive and the entry in the BCR's
   layout: modules/rules_cuda_stages/{metadata.json,<version>/...}. The archive
   is the same bytes when made twice, its members have fixed owners and times,
   it leaves out what .gitattributes export-ignores and holds the BCR test
   module; the entry's MODULE.bazel is the archive's and source.json's
   integrity is the archive's sha256.
2. tests/release/consumer, a workspace whose MODULE.bazel only says
   bazel_dep(name = "rules_cuda_stages", version = ...), with --registry
   pointing at that registry (plus tools/bazelw's offline settings for Bazel's
   own dependencies) and Bazel 8.0's and 9.0's incompatible flags
   (--config=bazel9, dev/incompatible.bazelrc), resolves the module from
   the archive (bazel mod show_repo: the entry's URL and integrity), builds a
   cuda_library and runs a cuda_test (host checks; the kernel where a GPU is)
   with the hermetic toolkit, and runs the module's cache_report tool on its
   execution log.

Nested Bazel with its own output base; downloads come from the repository
cache of the Bazel running the test (checkout_lib.shared_repository_cache).
"""

import base64
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
import unittest

from tests.e2e import checkout_lib

MODULE = "rules_cuda_stages"


def _module_version(path):
    with open(path) as f:
        text = f.read()
    return re.search(r'^module\(.*?^\s*version = "([^"]+)"', text, re.S | re.M).group(1)


def _dep_version(path):
    with open(path) as f:
        match = re.search(r'bazel_dep\(name = "%s", version = "([^"]+)"\)' % MODULE, f.read())
    return match.group(1) if match else None


class RegistryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = os.environ["TEST_TMPDIR"]
        cls.src = checkout_lib.source_workspace()
        cls.version = _module_version(os.path.join(cls.src, "MODULE.bazel"))
        cls.registry = os.path.join(tmp, "registry")
        cls.again = os.path.join(tmp, "registry_again")
        cls.release_out = cls._release(cls.registry)
        cls._release(cls.again)
        cls.archive = glob.glob(os.path.join(cls.registry, "*.tar.gz"))[0]
        cls.entry = os.path.join(cls.registry, "modules", MODULE, cls.version)

        cls.consumer = os.path.join(tmp, "consumer")
        shutil.copytree(os.path.join(cls.src, "tests", "release", "consumer"), cls.consumer)
        offline = checkout_lib.offline_flags()
        registries = ["file://" + cls.registry]
        if not offline:
            registries.append("https://bcr.bazel.build")  # Bazel's own dependencies
        with open(os.path.join(cls.consumer, ".bazelrc"), "a") as f:
            f.write("".join("common --registry=%s\n" % r for r in registries))
            if offline:
                f.write("import %s\n" % os.path.join(cls.src, "tools", "offline", "offline.bazelrc"))
            # --config=bazel9 (below): Bazel 8.0's and 9.0's incompatible flags.
            f.write("import %s\n" % os.path.join(cls.src, "dev", "incompatible.bazelrc"))
        cls.output_base = os.path.join(tmp, "consumer.output_base")
        cls.exec_log = os.path.join(tmp, "exec.json")
        try:
            cls.show_repo = cls._bazel("mod", "show_repo", "@" + MODULE).stdout
            cls.test_run = cls._bazel("test", "--execution_log_json_file=" + cls.exec_log, "//...", check=False)
            cls.report = cls._bazel("run", "@%s//tools/cache_report" % MODULE, "--", "--format=json", cls.exec_log,
                                    check=False)
            cls.module_root = cls._bazel("info", "output_base").stdout.strip()
        finally:
            cls._bazel("shutdown", check=False)

    @classmethod
    def _release(cls, out):
        proc = subprocess.run(
            [os.path.join(cls.src, "dev", "release"), cls.version, out,
             "--checkout=" + cls.src, "--url=file://%s/" % out],
            capture_output=True, text=True)
        if proc.returncode != 0:
            raise AssertionError("dev/release failed:\n" + proc.stdout + proc.stderr)
        return proc.stdout

    @classmethod
    def _bazel(cls, command, *args, check=True):
        cmd = [checkout_lib.bazel_binary(), "--output_base=" + cls.output_base, "--max_idle_secs=60", command]
        if command != "shutdown":
            cmd += checkout_lib.offline_flags() + ["--config=bazel9"]
        if command not in ("shutdown", "info"):
            cmd += ["--repository_cache=" + checkout_lib.shared_repository_cache(), "--noshow_progress"]
        cmd += list(args)
        proc = subprocess.run(cmd, cwd=cls.consumer, env=dict(os.environ, HOME=os.environ["TEST_TMPDIR"]),
                              capture_output=True, text=True)
        if check and proc.returncode != 0:
            raise AssertionError("`%s` failed:\n%s" % (" ".join(cmd), proc.stderr[-6000:]))
        return proc

    # -- the archive and the entry ------------------------------------------

    def test_entry_is_in_the_bcr_layout(self):
        module_dir = os.path.join(self.registry, "modules", MODULE)
        self.assertEqual(sorted(os.listdir(self.entry)), ["MODULE.bazel", "presubmit.yml", "source.json"])
        with open(os.path.join(module_dir, "metadata.json")) as f:
            metadata = json.load(f)
        self.assertEqual(metadata["versions"], [self.version])
        self.assertTrue(metadata["repository"][0].startswith("github:"), metadata)
        with open(os.path.join(self.entry, "presubmit.yml")) as f, \
                open(os.path.join(self.src, ".bcr", "presubmit.yml")) as g:
            self.assertEqual(f.read(), g.read())

    def test_archive_is_reproducible(self):
        with open(self.archive, "rb") as f:
            data = f.read()
        with open(os.path.join(self.again, os.path.basename(self.archive)), "rb") as f:
            self.assertEqual(f.read(), data)
        self.assertEqual(data[4:8], b"\0\0\0\0", "gzip header must hold no timestamp")
        self.assertFalse(data[3] & 0x08, "gzip header must hold no file name")
        with tarfile.open(self.archive) as tar:
            members = tar.getmembers()
        names = [m.name for m in members]
        self.assertEqual(names, sorted(names, key=str.encode))
        for m in members:
            self.assertEqual((m.uid, m.gid, m.uname, m.gname, m.mtime), (0, 0, "", "", 0), m.name)
            self.assertIn(m.mode, (0o644, 0o755, 0o777), m.name)

    def test_archive_holds_the_module_and_the_test_module_only(self):
        with open(os.path.join(self.entry, "source.json")) as f:
            source = json.load(f)
        prefix = source["strip_prefix"] + "/"
        with tarfile.open(self.archive) as tar:
            names = {m.name[len(prefix):] for m in tar.getmembers() if m.name.startswith(prefix)}
            self.assertEqual(len(names), len(tar.getmembers()), "every member lies under strip_prefix")
            module_bazel = tar.extractfile(prefix + "MODULE.bazel").read()
        for present in ("MODULE.bazel", "LICENSE", "NOTICE", "cuda_rules/defs.bzl", "examples/MODULE.bazel",
                        "tools/nvcc_plan/BUILD.bazel", "tools/python_deps/requirements_lock.json"):
            self.assertIn(present, names)
        for top in ("tests/", "bench/", ".ci/", "docs/performance/"):
            self.assertFalse([n for n in names if n.startswith(top)], top + " is export-ignored")
        with open(os.path.join(self.entry, "MODULE.bazel"), "rb") as f:
            self.assertEqual(f.read(), module_bazel)

    def test_source_json_integrity_is_the_archives(self):
        with open(os.path.join(self.entry, "source.json")) as f:
            source = json.load(f)
        with open(self.archive, "rb") as f:
            digest = base64.b64encode(hashlib.sha256(f.read()).digest()).decode()
        self.assertEqual(source["integrity"], "sha256-" + digest)
        self.assertEqual(source["url"], "file://" + self.archive)
        self.assertIn(source["integrity"], self.release_out)

    def test_versions_agree(self):
        # The release version everywhere a user or the BCR reads it.
        self.assertEqual(_dep_version(os.path.join(self.src, "examples", "MODULE.bazel")), self.version)
        self.assertEqual(_dep_version(os.path.join(self.src, "tests", "release", "consumer", "MODULE.bazel")),
                         self.version, "tests/release/consumer/MODULE.bazel must depend on the release version")
        self.assertEqual(_dep_version(os.path.join(self.src, "README.md")), self.version,
                         "README.md's bazel_dep line must name the release version")

    # -- the consumer ---------------------------------------------------------

    def test_consumer_has_no_override(self):
        for path in glob.glob(os.path.join(self.src, "tests", "release", "consumer", "*")) + \
                glob.glob(os.path.join(self.src, "tests", "release", "consumer", ".*")):
            with open(path) as f:
                self.assertNotRegex(f.read(), r"_override\(|--override_module=%s" % MODULE, path)

    def test_module_resolves_from_the_registry_archive(self):
        with open(os.path.join(self.entry, "source.json")) as f:
            source = json.load(f)
        self.assertIn('integrity = "%s"' % source["integrity"], self.show_repo)
        self.assertIn('strip_prefix = "%s"' % source["strip_prefix"], self.show_repo)
        # Bazel writes file:///x as file:/x.
        self.assertIn('urls = ["file:%s"]' % self.archive, self.show_repo)
        # The repository is the archive's content: LICENSE, no tests/.
        roots = [d for d in glob.glob(os.path.join(self.module_root, "external", MODULE + "[~+]*"))
                 if os.path.isfile(os.path.join(d, "MODULE.bazel"))]
        self.assertEqual(len(roots), 1, roots)
        self.assertTrue(os.path.isfile(os.path.join(roots[0], "LICENSE")))
        self.assertFalse(os.path.exists(os.path.join(roots[0], "tests")))

    def test_cuda_test_builds_and_passes(self):
        self.assertEqual(self.test_run.returncode, 0, self.test_run.stderr[-6000:])
        self.assertRegex(self.test_run.stdout + self.test_run.stderr, r"//:saxpy_test\s+PASSED")
        log = os.path.join(self.module_root, "execroot", "_main", "bazel-out")
        logs = glob.glob(os.path.join(log, "*", "testlogs", "saxpy_test", "test.log"))
        self.assertEqual(len(logs), 1, logs)
        with open(logs[0]) as f:
            text = f.read()
        self.assertIn("host checks passed", text)
        self.assertIn("PASS", text)

    def test_cache_report_runs_from_the_module(self):
        self.assertEqual(self.report.returncode, 0, self.report.stderr[-6000:])
        rows = json.loads(self.report.stdout)
        # The stages of saxpy.cu and saxpy_test.cc (a cuda_test's .cc source is CUDA too),
        # each once per source, all run by this fresh build (no cache): among them
        # cicc, ptxas for sm_90 (archs = "sm_90" on both) and the host compile.
        stages = {(r["stage"], r["arch"]) for r in rows}
        self.assertIn(("CudaPtxas", "sm_90"), stages)
        self.assertTrue({"CudaCicc", "CudaHostCompile"} <= {stage for stage, _ in stages}, stages)
        for r in rows:
            self.assertEqual((r["actions"], r["executed"]), (2, 2), r)


if __name__ == "__main__":
    checkout_lib.main()
