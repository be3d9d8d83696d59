"""End to end, with real nested Bazel builds of the examples:

1. Reproducibility: two checkouts at different absolute paths, each with its
   own output base, build the examples cold for the shipped set (plain
   `bazel build`: MODULE.bazel's cuda.archs(shipped = ...), 4 archs); every
   stage output (preprocessed files, PTX, cubins, fatbinaries, host objects)
   is byte-identical between them.
2. CI -> developer reuse, with no flag but the developer's arch: checkout 1
   filled a --disk_cache with its build of the shipped set; checkout 2 runs
   `bazel clean` and builds sm_90 only against that cache. Bazel's execution
   log shows every sm_90 CudaCicc and CudaPtxas (compute_90 is the
   registration arch: its cicc front end runs in CudaFrontend) and
   every CudaPreprocess, CudaFrontend and
   CudaHostCompile of all examples, the CUB one included, as a cache hit: a
   subset of the shipped set is compiled with the shipped set's
   __CUDA_ARCH_LIST__, and the host compile reads no device code. The same
   for sm_80 (not the shipped set's last arch: the registration stub is
   written for the set's last arch whatever the build compiles), and for an
   rdc binary over two libraries, sm_90's device link included (CudaDeviceLink
   always passes nvlink -report-arch).
   A device-only edit that keeps the source's lines (a kernel's expression)
   then re-runs cudafe++, the device stages and CudaEmbedFatbin, but no host
   compile: cudafe++'s host output no longer holds device code's text.
   A host-only C++ flag (--cxxopt=-Wextra) against CI's cache re-runs the
   preprocess and host compile of every source and reuses every cicc and
   ptxas: the C++ toolchain's host-only flags are not in any device
   preprocess's command, so the preprocess writes the same device side.
3. An arch outside the shipped set (sm_89) builds with its own list, reuses
   nothing of CI's, and the build says so once.
4. `native` is detected only by a build that asks for it.
5. The stage actions ran sandboxed (linux-sandbox where available), so their
   declared inputs are complete; CudaPlan ran in a persistent worker.
6. Compile errors name the source as its workspace-relative path
   (tests/e2e/broken/syntax_error.cu(1): error: ...) in every stage.

With CUDA 12.4 and 13.5 (reuse_test_cuda12_4, reuse_test_cuda13_5) the
host-only --cxxopt of 2, 3, 4 and the exec-group routing are left out: they
check the rules' own logic, which no toolkit changes. Those two build the
examples without CUB's sum.cu, which is ~85 % of the examples' compile time
(one arch: 12.7 s of nvcc against ~1 s for each other source); what CUB's
headers do with each toolkit is //tests/fidelity's (cuda12_4_thrust_sort_*,
cuda13_5_cub_reduce_*: byte-identical to nvcc's outputs).
"""

import os
import re
import shutil
import subprocess
import sys
import unittest

from tests.e2e import checkout_lib
from tests.e2e.checkout_lib import TOOLKIT, Checkout
from tools.cache_report import cache_report_lib

# What depends on the toolkit runs with each (reproducibility, CI -> developer
# reuse, device links, the device-only edit, errors); what is the rules' own
# logic whatever the toolkit (a host-only --cxxopt, an arch outside the
# shipped set, `native`, exec-group routing) runs with the default one only.
FULL = TOOLKIT == "13.0"

CI_ARCHS = "sm_75,sm_80,sm_86,sm_90,compute_90"
if FULL:
    TARGETS = ["@rules_cuda_stages_examples//..."]
else:  # all but //cub_reduce (the docstring says why)
    TARGETS = ["@rules_cuda_stages_examples//%s/..." % p for p in ("vector_add", "templated", "driver_api")]
# An rdc binary over two rdc libraries (tests/rdc/geom, tests/rdc/mathlib): its device links.
RDC_TARGET = "//tests/rdc:separate_compilation_test"
# The stages of a source that make its host object (no device code among their inputs).
HOST_STAGES = ("CudaPreprocess", "CudaFrontend", "CudaHostCompile")

# The examples' CUDA sources: vector_add.cu, vector_add_demo.cc (a cuda_binary's
# .cc source is CUDA too), scale.cu, sum.cu (CUB; with the default toolkit only)
# and driver_api's kernels.cu.
SOURCES = 5 if FULL else 4


def _only_with_the_default_toolkit(test):
    if not FULL:
        test.skipTest("the rules' own logic, the same with every toolkit: checked by //tests/e2e:reuse_test (CUDA 13.0)")


# The newest gcc major each toolkit accepts (crt/host_config.h).
MAX_GCC = {"13.0": 15, "12.4": 13}


def _too_new_gcc():
    """A gcc newer than the toolkit supports, if this machine has one."""
    if TOOLKIT not in MAX_GCC:
        return None
    for name in ("gcc-16", "gcc-17", "gcc-14", "gcc"):
        path = shutil.which(name)
        if not path:
            continue
        version = subprocess.run([path, "-dumpversion"], capture_output=True, text=True).stdout.strip()
        if version.split(".")[0].isdigit() and int(version.split(".")[0]) > MAX_GCC[TOOLKIT]:
            return path
    return None


def _tampered_build(checkout):
    """Breaks the pinned sha256 of one 13.5 wheel in the checkout's table; returns the build args."""
    table = os.path.join(checkout.dir, "cuda_rules", "private", "repo", "cuda_versions.bzl")
    with open(table) as f:
        text = f.read()
    marker = '"filename": "nvidia_cuda_nvcc-13.5.'
    start = text.index(marker, text.index('"x86_64"', text.index('"13.5"')))
    sha = text.index('"sha256": "', start) + len('"sha256": "')
    text = text[:sha] + "0" * 64 + text[sha + 64:]
    # A new file (new inode), written while no Bazel server runs: a server that
    # had the table loaded once fetched the toolkit with its old, cached
    # contents (seen on CI), which is no test of the checksum.
    checkout.bazel("shutdown")
    with open(table + ".tmp", "w") as f:
        f.write(text)
    os.replace(table + ".tmp", table)
    return ("build", "--//cuda_rules:toolkit=13.5", "//tests/e2e/broken:ok")


def _fetched_toolkits(checkout):
    """The hermetic toolkit repositories (cuda_<major>_<minor>_<platform>, and their libraries') in the output base."""
    external = os.path.join(checkout.output_base, "external")
    return sorted(n.rpartition("~")[2].rpartition("+")[2] for n in os.listdir(external)
                  if re.search(r"cuda_[0-9]+_[0-9]+_(x86_64|aarch64)", n) and os.path.isdir(os.path.join(external, n)))


class ReuseTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = os.environ["TEST_TMPDIR"]
        cls.disk_cache = os.path.join(tmp, "disk_cache")
        cls.one = Checkout(tmp, "ci")
        cls.two = Checkout(tmp, "developer-checkout-at-a-longer-path")
        cls.ci_log = os.path.join(tmp, "ci.json")
        cls.cold_log = os.path.join(tmp, "cold2.json")
        # The developer build writes Bazel's binary log (the CI builds JSON
        # ones), so both formats of real logs are read.
        cls.dev_log = os.path.join(tmp, "dev.binlog")
        try:
            # CI: plain `bazel build`, the shipped set.
            cls.one.bazel("build", "--disk_cache=" + cls.disk_cache, "--execution_log_json_file=" + cls.ci_log, *TARGETS)
            # Its own, empty disk cache: a cold build, whose log also records
            # each action's key (digest).
            cls.two.bazel("build", "--disk_cache=" + os.path.join(tmp, "disk_cache_two"),
                          "--execution_log_json_file=" + cls.cold_log, *TARGETS)
            cls.one_outputs = cls.one.cuda_outputs()
            cls.one_toolkits = _fetched_toolkits(cls.one)
            cls.two_outputs = cls.two.cuda_outputs()
            if FULL:
                # A host-only C++ flag from the command line, against CI's cache.
                cls.cxxopt_scripts_before = cls.one.plan_scripts()
                cls.one.bazel("clean")
                cls.cxxopt_log = os.path.join(tmp, "cxxopt.json")
                cls.one.bazel("build", "--cxxopt=-Wextra", "--disk_cache=" + cls.disk_cache,
                              "--execution_log_json_file=" + cls.cxxopt_log, *TARGETS)
                cls.cxxopt_scripts = cls.one.plan_scripts()
            # CI also builds the rdc binary (the shipped set), into the cache.
            cls.ci_rdc_log = os.path.join(tmp, "ci_rdc.json")
            cls.one.bazel("build", "--disk_cache=" + cls.disk_cache, "--execution_log_json_file=" + cls.ci_rdc_log, RDC_TARGET)
            cls.two.bazel("clean")
            cls.dev_stderr = cls.two.bazel_stderr("build", "--//cuda_rules:archs=sm_90", "--disk_cache=" + cls.disk_cache,
                                                  "--execution_log_binary_file=" + cls.dev_log, *TARGETS)
            cls.dev_scripts = cls.two.plan_scripts()
            # The rdc binary, sm_90 only, against CI's cache (not built in this output base before).
            cls.dev_rdc_log = os.path.join(tmp, "dev_rdc.json")
            cls.two.bazel("build", "--//cuda_rules:archs=sm_90", "--disk_cache=" + cls.disk_cache,
                          "--execution_log_json_file=" + cls.dev_rdc_log, RDC_TARGET)
            # A developer's build of an arch that is not the shipped set's last.
            cls.two.bazel("clean")
            cls.dev80_log = os.path.join(tmp, "dev80.json")
            cls.two.bazel("build", "--//cuda_rules:archs=sm_80", "--disk_cache=" + cls.disk_cache,
                          "--execution_log_json_file=" + cls.dev80_log, *TARGETS)
            cls.dev80_scripts = cls.two.plan_scripts()
            if FULL:
                # An arch outside the shipped set, against CI's cache.
                cls.outside_log = os.path.join(tmp, "outside.json")
                cls.outside_stderr = cls.two.bazel_stderr(
                    "build", "--//cuda_rules:archs=sm_89", "--disk_cache=" + cls.disk_cache,
                    "--execution_log_json_file=" + cls.outside_log, *TARGETS)
                cls.outside_scripts = cls.two.plan_scripts()
                cls.native_fetched_before = [c.native_repo_fetched() for c in (cls.one, cls.two)]
                cls.native_stderr = cls.two.bazel_stderr("build", "--nobuild", "--//cuda_rules:archs=native", *TARGETS)
                cls.native_fetched_after = cls.two.native_repo_fetched()
            cls.device_error = cls.two.bazel_fails("build", "//tests/e2e/broken:device_error")
            # --keep_going: every stage that fails says so (cudafe++ and cicc; both preprocesses).
            cls.syntax_error = cls.two.bazel_fails("build", "--keep_going", "//tests/e2e/broken:syntax_error")
            cls.missing_header = cls.two.bazel_fails("build", "--keep_going", "//tests/e2e/broken:missing_header")
            if FULL:
                cls.routing_log = os.path.join(tmp, "routing.binlog")
                cls.two.bazel("build", "--execution_log_binary_file=" + cls.routing_log, "//tests/e2e/routing:routed")
            # A device-only edit on the same line, built for sm_90 again (after an sm_90
            # build of the unchanged sources, so that only the edit differs; that build is
            # served from CI's cache, which the developer's sm_90 builds above filled too,
            # with every output downloaded, as a local build leaves them).
            cls.two.bazel("build", "--//cuda_rules:archs=sm_90", "--disk_cache=" + cls.disk_cache, "--remote_download_all",
                          *TARGETS)
            source = os.path.join(cls.two.dir, "examples", "vector_add", "vector_add.cu")
            with open(source) as f:
                text = f.read()
            assert "out[i] = a[i] + b[i];" in text
            with open(source, "w") as f:
                f.write(text.replace("out[i] = a[i] + b[i];", "out[i] = b[i] + a[i];"))
            cls.edit_log = os.path.join(tmp, "device_edit.json")
            cls.two.bazel("build", "--//cuda_rules:archs=sm_90", "--execution_log_json_file=" + cls.edit_log, *TARGETS)
            cls.too_new_gcc = _too_new_gcc()
            if TOOLKIT == "13.0":
                cls.tampered_error = cls.two.bazel_fails(*_tampered_build(cls.two))
            if cls.too_new_gcc:
                # (12.4: without the toolchain tests/toolkit/host_cc.bzl registers for it.)
                cls.host_compiler_error = cls.two.bazel_fails(
                    "build", "--repo_env=CC=" + cls.too_new_gcc, "--repo_env=CUDA12_HOST_CC=none", "//tests/e2e/broken:ok")
        finally:
            checkout_lib.shut_down(cls.one, cls.two)

    def test_two_checkouts_build_byte_identical_stage_outputs(self):
        self.assertGreater(len(self.one_outputs), 60)
        self.assertEqual(sorted(self.one_outputs), sorted(self.two_outputs))
        different = [p for p in self.one_outputs if self.one_outputs[p] != self.two_outputs[p]]
        self.assertEqual(different, [], "outputs that differ between checkouts")
        kinds = {os.path.splitext(p)[1] for p in self.one_outputs}
        self.assertTrue({".ptx", ".cubin", ".fatbin", ".o", ".ii"} <= kinds, kinds)

    def test_two_checkouts_have_identical_device_stage_keys(self):
        # The action keys (digests) of CudaCicc and CudaPtxas do not depend on
        # where the checkout, the output base or the toolkit's files are.
        def keys(log):
            return sorted((s.mnemonic, s.arch, s.outputs[0], s.digest)
                          for s in cache_report_lib.read_log(log)
                          if s.mnemonic in ("CudaCicc", "CudaPtxas"))
        one, two = keys(self.ci_log), keys(self.cold_log)
        self.assertEqual(len(one), SOURCES * 8)  # 4 cicc + 4 ptxas per source
        self.assertTrue(all(k[3] for k in one), "spawns without a digest")
        self.assertEqual(one, two)

    def test_developer_sm90_build_reuses_all_of_cis_device_code(self):
        spawns = cache_report_lib.read_log(self.dev_log)
        stages = HOST_STAGES + ("CudaCicc", "CudaPtxas")
        reused = [s for s in spawns if s.mnemonic in stages]
        # Per source (CUB included): the preprocess (of every arch of the shipped set: CI's action),
        # the front ends (cudafe++ and the registration stub), host compile, and for sm_90: cicc, ptxas.
        # compute_90 is the stub's arch: its front end ran in CudaFrontend, which passes its
        # preprocessed source on to its (whole) cicc.
        self.assertEqual(len(reused), SOURCES * 5, [(s.target, s.mnemonic) for s in reused])
        self.assertEqual({s.arch for s in reused if s.mnemonic in ("CudaCicc", "CudaPtxas")}, {"compute_90", "sm_90"})
        self.assertEqual(any("//cub_reduce:" in s.target for s in reused), FULL)
        misses = [(s.target, s.mnemonic, s.arch) for s in reused if not s.cache_hit]
        self.assertEqual(misses, [], "stages of the sm_90 build that were not cache hits")
        rows = cache_report_lib.summarize(spawns, cache_report_lib.read_log(self.ci_log))
        print("\nCUDA %s: developer build, sm_90 after CI's build of the shipped set (%s):" % (TOOLKIT, CI_ARCHS))
        sys.stdout.write(cache_report_lib.format_rows(rows, "table"))
        self.assertEqual(cache_report_lib.device_fraction_from_cache(rows), 1.0)
        # ...because every stage got the shipped set's list, not sm_90's.
        checked = 0
        for path, text in self.dev_scripts.items():
            if path.endswith("/preprocess.sh"):
                self.assertIn("-D__CUDA_ARCH_LIST__=750,800,860,900 ", text, path)
                # every arch of the shipped set, not only sm_90
                self.assertEqual(len(re.findall(" -D__CUDA_ARCH__=[0-9]+ ", text)), 4, path)
                checked += 1
        self.assertGreaterEqual(checked, SOURCES)

    def test_developer_build_of_a_non_last_arch_reuses_cis_host_objects(self):
        # sm_80 is not the shipped set's last arch: the registration stub is still the shipped
        # set's last (compute_90), so the stub and the host compile are CI's actions.
        spawns = cache_report_lib.read_log(self.dev80_log)
        host = [s for s in spawns if s.mnemonic in HOST_STAGES]
        self.assertEqual(len(host), SOURCES * len(HOST_STAGES), [(s.target, s.mnemonic) for s in host])
        self.assertEqual([(s.target, s.mnemonic) for s in host if not s.cache_hit], [],
                         "host stages of the sm_80 build that were not cache hits")
        device = [s for s in spawns if s.mnemonic in ("CudaCicc", "CudaPtxas")]
        self.assertEqual(len(device), SOURCES * 2)
        self.assertEqual({s.arch for s in device}, {"compute_80", "sm_80"})
        self.assertEqual([(s.target, s.mnemonic) for s in device if not s.cache_hit], [])
        stubs = {p: t for p, t in self.dev80_scripts.items() if p.endswith("/frontend.sh")}
        self.assertEqual(len(stubs), SOURCES, sorted(stubs))
        for path, text in stubs.items():
            self.assertIn(" -arch compute_90 ", text, path)
            self.assertIn("compute_90/", text, path)  # it reads compute_90's preprocessed source
            # cicc's front end alone (the stub); compute_90's CudaCicc runs the whole cicc
            # (cicc_split.PLANNER_SPLITS).
            self.assertIn(" --Xlgenfe --device-syntax-only", text, path)
        rows = cache_report_lib.summarize(spawns, cache_report_lib.read_log(self.ci_log))
        print("\nCUDA %s: developer build, sm_80 after CI's build of the shipped set (%s):" % (TOOLKIT, CI_ARCHS))
        sys.stdout.write(cache_report_lib.format_rows(rows, "table"))
        sys.stdout.write(cache_report_lib.headline(rows))

    def test_developer_sm90_build_reuses_cis_device_links(self):
        # CudaDeviceLink sm_90 is the same action in CI's 4-arch build and in an sm_90 build
        # (nvlink gets -report-arch in both), for an rdc binary over two rdc libraries.
        ci = [s for s in cache_report_lib.read_log(self.ci_rdc_log) if s.mnemonic == "CudaDeviceLink"]
        self.assertEqual({s.arch for s in ci}, {"sm_75", "sm_80", "sm_86", "sm_90"})
        spawns = cache_report_lib.read_log(self.dev_rdc_log)
        links = [s for s in spawns if s.mnemonic == "CudaDeviceLink"]
        self.assertTrue(links)
        self.assertEqual({s.arch for s in links}, {"sm_90"})
        self.assertEqual([(s.target, s.arch) for s in links if not s.cache_hit], [],
                         "device links of the sm_90 build that were not cache hits")
        compiled = [s for s in spawns if s.mnemonic in HOST_STAGES + ("CudaCicc", "CudaPtxas")]
        self.assertEqual([(s.target, s.mnemonic) for s in compiled if not s.cache_hit], [])
        # The report's headline: the compile's device stages, and the device links on their own line.
        rows = cache_report_lib.summarize(spawns, cache_report_lib.read_log(self.ci_rdc_log))
        headline = cache_report_lib.headline(rows)
        print("\nCUDA %s: the rdc binary, sm_90 after CI's build:\n%s" % (TOOLKIT, headline))
        self.assertIn("device stages (CudaCicc, CudaPtxas): 100.0 %", headline)
        self.assertIn("device links (CudaDeviceLink): 100.0 %% of their time served from cache (%d of %d actions"
                      % (len(links), len(links)), headline)

    def test_device_only_edit_re_runs_no_host_compile(self):
        spawns = [s for s in cache_report_lib.read_log(self.edit_log)
                  if "//vector_add:" in s.target and s.mnemonic.startswith("Cuda")]
        executed = sorted(s.mnemonic for s in spawns if not s.cache_hit)
        # The preprocess and the front ends (cudafe++ and the registration stub's cicc front end) re-ran
        # (their inputs changed) and wrote the same host code and stub; cicc (compute_90's back end), ptxas, and the object
        # with its fatbinary re-ran (then the archive and the link); the host compile's key did not
        # change, so it did not run.
        self.assertEqual(
            executed,
            sorted(["CudaPreprocess", "CudaFrontend", "CudaCicc", "CudaPtxas", "CudaEmbedFatbin"]),
        )
        self.assertNotIn("CudaHostCompile", [s.mnemonic for s in spawns if not s.cache_hit])

    def test_arch_outside_the_shipped_set_builds_with_its_own_list(self):
        _only_with_the_default_toolkit(self)
        spawns = cache_report_lib.read_log(self.outside_log)
        # Every stage whose command holds the list ran: no wrong reuse, and none of CI's.
        # (sm_89 is the stub's arch here; CudaFrontend's cicc front end reads its preprocessed source.)
        listed = ("CudaPreprocess", "CudaFrontend", "CudaCicc", "CudaPtxas")
        stages = [s for s in spawns if s.mnemonic in listed]
        self.assertEqual(sorted(s.mnemonic for s in stages), sorted(list(listed) * SOURCES))
        self.assertEqual({s.arch for s in stages if s.mnemonic == "CudaPtxas"}, {"sm_89"})
        self.assertEqual([(s.target, s.mnemonic) for s in stages if s.cache_hit], [], "nothing of CI's is reused")
        pre = {p: t for p, t in self.outside_scripts.items() if p.endswith("/preprocess.sh")}
        self.assertEqual(len(pre), SOURCES, sorted(pre))
        for path, text in pre.items():
            self.assertIn("-D__CUDA_ARCH_LIST__=890 ", text, path)
        # Said once for the build (every cuda_library target), naming the arch and the fix.
        notice = "this build compiles compute_89, outside the shipped set (%s" % CI_ARCHS
        self.assertEqual(self.outside_stderr.count(notice), 1, self.outside_stderr[-3000:])
        self.assertIn("--@rules_cuda_stages//cuda_rules:archs=sm_90", self.outside_stderr)
        # The developer's sm_90 build before it said nothing: it is a subset.
        self.assertNotIn("outside the shipped set", self.dev_stderr)

    def test_only_the_selected_toolkit_is_fetched(self):
        # CI's build of the examples: the selected toolkit for this machine's
        # platform, no other version, no other platform, no library.
        self.assertEqual(self.one_toolkits, ["cuda_%s_x86_64" % TOOLKIT.replace(".", "_")])

    def test_native_is_detected_only_when_asked_for(self):
        _only_with_the_default_toolkit(self)
        self.assertEqual(self.native_fetched_before, [False, False], "@cuda_native_archs fetched without archs=native")
        self.assertTrue(self.native_fetched_after)
        if "found no GPU" in self.native_stderr:
            # This machine: no driver or no GPU. The build falls back to the shipped set, saying why once.
            self.assertEqual(self.native_stderr.count("=native found no GPU to compile for ("), 1, self.native_stderr[-3000:])
            self.assertIn("compiles the shipped set (%s)" % CI_ARCHS, self.native_stderr)

    def test_device_compile_error_names_source_line_and_stage(self):
        err = self.device_error
        self.assertIn("tests/e2e/broken/device_error.cu(5)", err)  # cicc's file(line) form
        self.assertIn("host_only", err)
        # cicc's front end finds it: in CudaCicc, or in CudaFrontend's (the registration stub's), whichever ends first.
        self.assertRegex(err, "CudaCicc|CudaFrontend")
        self.assertIn("//tests/e2e/broken:device_error", err)

    def test_errors_name_the_workspace_relative_path(self):
        # As cc rules print them: editors and terminals resolve the path against the workspace.
        for err, source, message, stages in [
            (self.syntax_error, "syntax_error.cu", '(1): error: expected a ";"', ("CudaFrontend", "CudaCicc")),
            (self.missing_header, "missing_header.cu", ":1:10: fatal error: tests/e2e/broken/no_such_header.h",
             ("CudaPreprocess",)),
        ]:
            self.assertIn("\ntests/e2e/broken/" + source + message, err)
            self.assertNotIn("/proc/self/cwd/tests/e2e/broken/" + source, err)
            for stage in stages:
                self.assertIn(stage, err)
        self.assertNotIn("/proc/self/cwd/tests/e2e/broken/device_error.cu", self.device_error)
        # Said once, though CudaPreprocess runs the host side's -E and every arch's at once: it prints the
        # first failing command's errors alone.
        self.assertEqual(self.missing_header.count("fatal error: tests/e2e/broken/no_such_header.h"), 1, self.missing_header[-3000:])

    def test_host_only_cxxopt_re_runs_host_stages_and_reuses_device_stages(self):
        _only_with_the_default_toolkit(self)
        spawns = [s for s in cache_report_lib.read_log(self.cxxopt_log) if s.mnemonic.startswith("Cuda")]
        ran = sorted((s.mnemonic, s.target) for s in spawns if not s.cache_hit)
        device = [s for s in spawns if s.mnemonic in ("CudaCicc", "CudaPtxas")]
        # 4 archs x 2 device stages per source; the preprocess re-ran (its host side has the flag) and
        # wrote the same device side.
        self.assertEqual(len(device), SOURCES * 8)
        self.assertEqual([(s.mnemonic, s.target) for s in device if not s.cache_hit], [], "device stages that re-ran")
        for mnemonic in ("CudaPreprocess", "CudaHostCompile"):
            self.assertEqual(len([m for m, _ in ran if m == mnemonic]), SOURCES, ran)
        # Its commands: the flag is in the host stages' scripts only.
        changed = sorted(p for p in self.cxxopt_scripts if self.cxxopt_scripts[p] != self.cxxopt_scripts_before.get(p))
        self.assertTrue(changed)
        self.assertEqual({os.path.basename(p) for p in changed}, {"preprocess.sh", "host_compile.sh"}, changed)
        for path in changed:
            self.assertIn(" -Wextra ", self.cxxopt_scripts[path])

    def test_unsupported_host_compiler_gets_one_clear_message(self):
        if not self.too_new_gcc:
            self.skipTest("no gcc newer than CUDA %s supports on this machine (or no known limit)" % TOOLKIT)
        err = self.host_compiler_error
        # At analysis, before any stage runs: both versions and the fix, once.
        limit = MAX_GCC[TOOLKIT]
        self.assertIn("rules_cuda_stages: CUDA %s (@" % TOOLKIT, err)
        self.assertIn("accepts gcc %d and older as nvcc's host compiler" % limit, err)
        self.assertIn("the C++ toolchain's compiler is gcc ", err)
        self.assertIn("--repo_env=CC=gcc-%d" % limit, err)
        self.assertEqual(err.count("accepts gcc %d and older" % limit), 1, err[-3000:])
        self.assertNotIn("unsupported GNU version", err)  # no stage ran

    def test_checksum_mismatch_is_one_clear_error(self):
        if TOOLKIT != "13.0":
            self.skipTest("checked once, in the CUDA 13.0 run")
        err = self.tampered_error
        self.assertIn("rules_cuda_stages: CUDA 13.5: could not fetch nvidia_cuda_nvcc-13.5.", err)
        self.assertIn("sha256 " + "0" * 64, err)
        self.assertIn("tools/cuda_wheels/lock.py 13.5", err)

    def test_binary_log_is_read(self):
        # Bazel's own binary log, parsed with execlog.proto's generated code.
        with open(self.dev_log, "rb") as f:
            self.assertNotEqual(f.read(1), b"{")
        spawns = cache_report_lib.read_log(self.dev_log)
        cicc = [s for s in spawns if s.mnemonic == "CudaCicc"]
        self.assertEqual(len(cicc), SOURCES)
        self.assertTrue(all(s.digest and s.inputs and s.outputs and s.target for s in cicc))

    def test_per_stage_routing_through_exec_groups(self):
        _only_with_the_default_toolkit(self)
        # exec_properties = {"cicc.Pool": ..., "ptxas.Pool": ...} reach only those stages' spawns.
        pools = {s.mnemonic: s.platform.get("Pool") for s in cache_report_lib.read_log(self.routing_log)
                 if s.mnemonic.startswith("Cuda")}
        self.assertEqual(pools.pop("CudaCicc"), "cicc-workers")
        self.assertEqual(pools.pop("CudaPtxas"), "large-memory")
        self.assertEqual(set(pools.values()), {None}, pools)

    def test_stage_actions_ran_sandboxed(self):
        spawns = cache_report_lib.read_log(self.cold_log)
        runners = {s.runner for s in spawns if s.mnemonic.startswith("Cuda") and s.mnemonic != "CudaPlan" and not s.cache_hit}
        self.assertTrue(runners)
        self.assertTrue(all("sandbox" in r for r in runners), runners)
        # CudaPlan (nvcc --dryrun, no compile) runs in persistent workers.
        self.assertEqual({s.runner for s in spawns if s.mnemonic == "CudaPlan" and not s.cache_hit}, {"worker"})


if __name__ == "__main__":
    checkout_lib.main()
