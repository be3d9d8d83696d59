"""NVIDIA's redistrib manifests end to end, against a mirror on 127.0.0.1.

NVIDIA's server cannot be reached here, so the test makes a mirror in the
manifest's own layout from packages that can: CUDA 13.0's PyPI wheels (the
ones a wheel-toolkit build just downloaded), each repacked as
<component>/linux-x86_64/<component>-linux-x86_64-<version>-archive.tar.xz,
listed with their sha256 in redistrib_13.0.2.json, served by Python's HTTP
server on 127.0.0.1. Then:

1. A checkout builds the examples (sm_90) and @cuda//:nvjpeg with the wheel
   toolkit; another, whose MODULE.bazel adds
   cuda.redist(version = "13.0.2", sha256 = ..., urls = [a dead mirror, the
   local one]), builds the same: every stage output (preprocessed files, PTX,
   cubins, fatbinaries, objects, stage scripts) and the library are
   byte-identical, and its toolkit repository says where it came from.
2. Only what a build needs is fetched: the compiler's components for the
   examples, libnvjpeg only once @cuda//:nvjpeg is built, nothing for
   linux-sbsa; the dead mirror was tried and skipped.
3. A manifest whose sha256 is not the pinned one, and an archive whose sha256
   is not the manifest's (served from file://), each fail with one message
   (in the wheel toolkit's checkout, its builds done: its MODULE.bazel gets
   the tag, and Bazel fetches the toolkit anew).
"""

import http.server
import os
import shutil
import socketserver
import sys
import threading
import unittest

import lock  # tools/cuda_wheels/lock.py: the wheels tables
from tests.e2e import checkout_lib
from tests.e2e.checkout_lib import Checkout
from tests.redist import mirror_lib

RELEASE = "13.0.2"
TARGETS = ["@rules_cuda_stages_examples//...", "@cuda//:nvjpeg"]
BUILD_FLAGS = ["--//cuda_rules:archs=sm_90"]
# The redist builds try the dead mirror first for every file: Bazel's
# downloader makes 8 attempts at a refused connection, sleeping 0.1 s, 0.2 s,
# ... 6.4 s between them (~13 s a file, ~140 s for the manifest and the 10
# archives). With the sleeps capped it still makes every attempt, then skips
# the mirror.
DEAD_MIRROR_FLAGS = ["--http_connector_retry_max_timeout=100ms"]


class _Handler(http.server.SimpleHTTPRequestHandler):
    requests = []

    def log_message(self, fmt, *args):
        _Handler.requests.append(self.path)


def _serve(directory):
    handler = lambda *a, **k: _Handler(*a, directory=directory, **k)
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _cached(repository_cache, sha256):
    path = os.path.join(repository_cache, "content_addressable", "sha256", sha256, "file")
    if not os.path.exists(path):
        raise AssertionError("the wheel %s is not in the repository cache %s" % (sha256, repository_cache))
    return path


def _wheels():
    """(package, wheel dict, component) of the 13.0 x86_64 wheels the mirror holds."""
    out = []
    for w in lock.read_table()["13.0"]["wheels"]["x86_64"]:
        out.append((w["package"], w, mirror_lib.COMPILER_COMPONENTS[w["package"]]))
    libraries = lock.read_libraries_table()["13.0"]["components"]
    components = lock.read_components()
    for key in sorted(components):
        spec = components[key]
        if spec.get("redist") and (spec["toolkit"] == "yes" or key == "nvjpeg"):
            w = libraries[key]["archives"]["x86_64"][0]
            out.append((w["package"], w, spec["redist"]))
    return out


def _module_tag(**attrs):
    body = "".join("    %s = %r,\n" % (k, v) for k, v in sorted(attrs.items()))
    return "\ncuda.redist(\n    version = %r,\n%s)\n" % (RELEASE, body)


def _toolkit_build_file(checkout):
    external = os.path.join(checkout.output_base, "external")
    name = [n for n in os.listdir(external) if n.endswith("cuda_13_0_x86_64") and os.path.isdir(os.path.join(external, n))][0]
    with open(os.path.join(external, name, "BUILD.bazel")) as f:
        return f.readline()


def _library_files(checkout, repo):
    external = os.path.join(checkout.output_base, "external")
    name = [n for n in os.listdir(external) if n.endswith(repo) and os.path.isdir(os.path.join(external, n))][0]
    lib = os.path.join(external, name, "lib")
    return {n: mirror_lib.sha256_of(os.path.join(lib, n)) for n in sorted(os.listdir(lib))}


class RedistTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = os.environ["TEST_TMPDIR"]
        # A repository cache of this test's own: the mirror is made from what
        # the wheel build downloaded into it, and the redist build must ask the
        # mirror for its archives rather than find them cached.
        cache = os.path.join(tmp, "repository_cache")
        cls.wheels = Checkout(tmp, "wheels", repository_cache=cache)
        cls.redist = Checkout(tmp, "redist", repository_cache=cache)
        mirror = os.path.join(tmp, "mirror")
        server = None
        try:
            cls.wheels.bazel("build", *BUILD_FLAGS, *TARGETS)
            cls.wheel_outputs = cls.wheels.cuda_outputs()
            cls.wheel_nvjpeg = _library_files(cls.wheels, "cuda_13_0_x86_64_nvjpeg")

            # The mirror, from the wheels that build downloaded.
            archives = []
            for package, wheel, component in _wheels():
                relative = mirror_lib.repack(_cached(cache, wheel["sha256"]), "nvidia/cu13", component, "linux-x86_64",
                                             wheel["version"], mirror)
                archives.append((component, "linux-x86_64", wheel["version"], relative))
            cls.components = sorted(a[0] for a in archives)
            manifest, manifest_sha = mirror_lib.write_manifest(mirror, RELEASE, archives)
            server = _serve(mirror)
            local = "http://127.0.0.1:%d" % server.server_address[1]

            with open(os.path.join(cls.redist.dir, "MODULE.bazel"), "a") as f:
                f.write(_module_tag(sha256 = manifest_sha, urls = ["http://127.0.0.1:1/nothing-listens-here", local]))
            cls.redist.bazel("build", *BUILD_FLAGS, *DEAD_MIRROR_FLAGS, "@rules_cuda_stages_examples//...")
            cls.before_library = list(_Handler.requests)
            cls.redist.bazel("build", *BUILD_FLAGS, *DEAD_MIRROR_FLAGS, "@cuda//:nvjpeg")
            cls.requests = list(_Handler.requests)
            cls.redist_outputs = cls.redist.cuda_outputs()
            cls.redist_nvjpeg = _library_files(cls.redist, "cuda_13_0_x86_64_nvjpeg")
            cls.redist_origin = _toolkit_build_file(cls.redist)

            # A manifest that is not the pinned one (the wheel checkout's builds are done).
            module = os.path.join(cls.wheels.dir, "MODULE.bazel")
            with open(module) as f:
                original = f.read()
            with open(module, "w") as f:
                f.write(original + _module_tag(sha256 = "0" * 64, urls = [local]))
            cls.manifest_error = cls.wheels.bazel_fails("build", "--nobuild", "@rules_cuda_stages_examples//vector_add:vector_add")

            # An archive that is not the manifest's: a copy of the mirror whose
            # manifest has another sha256 for cuda_cccl, read through file://.
            tampered = os.path.join(tmp, "tampered")
            shutil.copytree(mirror, tampered)
            tampered_manifest = os.path.join(tampered, os.path.basename(manifest))
            with open(manifest) as f:
                text = f.read()
            cccl = [a for a in archives if a[0] == "cuda_cccl"][0]
            real = mirror_lib.sha256_of(os.path.join(mirror, cccl[3]))
            with open(tampered_manifest, "w") as f:
                f.write(text.replace(real, "1" * 64))
            with open(module, "w") as f:
                f.write(original + _module_tag(redist_json = "file://" + tampered_manifest, urls = ["file://" + tampered]))
            cls.archive_error = cls.wheels.bazel_fails("build", "--nobuild", "@rules_cuda_stages_examples//vector_add:vector_add")
        finally:
            if server:
                server.shutdown()
                server.server_close()
            checkout_lib.shut_down(cls.wheels, cls.redist)

    def test_outputs_are_byte_identical_to_the_wheel_toolkits(self):
        self.assertGreater(len(self.wheel_outputs), 25)
        self.assertEqual(sorted(self.wheel_outputs), sorted(self.redist_outputs))
        different = [p for p in self.wheel_outputs if self.wheel_outputs[p] != self.redist_outputs[p]]
        self.assertEqual(different, [], "stage outputs that differ between the wheel and the redist toolkit")
        kinds = {os.path.splitext(p)[1] for p in self.wheel_outputs}
        self.assertTrue({".ii", ".ptx", ".cubin", ".fatbin", ".o", ".sh"} <= kinds, kinds)
        self.assertEqual(self.wheel_nvjpeg, self.redist_nvjpeg)
        self.assertTrue(any(n.startswith("libnvjpeg.so") for n in self.redist_nvjpeg), self.redist_nvjpeg)

    def test_the_toolkit_came_from_the_manifest(self):
        self.assertIn("NVIDIA's redistributable archives (redistrib_%s.json)" % RELEASE, self.redist_origin)
        self.assertIn("cuda_nvcc 13.0.88", self.redist_origin)

    def test_only_what_the_build_needs_is_fetched(self):
        def fetched(requests):
            return sorted({r.strip("/").split("/")[0] for r in requests if r.endswith(".tar.xz")})
        compiler = ["cuda_cccl", "cuda_crt", "cuda_cudart", "cuda_cuxxfilt", "cuda_nvcc", "cuda_nvml_dev", "cuda_nvtx",
                    "cuda_profiler_api", "libnvvm"]
        self.assertEqual(fetched(self.before_library), compiler)
        self.assertEqual(fetched(self.requests), sorted(compiler + ["libnvjpeg"]))
        self.assertIn("/redistrib_%s.json" % RELEASE, self.requests)
        self.assertFalse([r for r in self.requests if "linux-sbsa" in r])
        print("\nthe mirror held %s; the builds fetched %d requests:\n  %s" % (
            ", ".join(self.components), len(self.requests), "\n  ".join(self.requests)))

    def test_a_manifest_that_is_not_the_pinned_one_fails(self):
        err = self.manifest_error
        self.assertIn("rules_cuda_stages: CUDA %s: could not fetch its manifest" % RELEASE, err)
        self.assertIn("(sha256 " + "0" * 64 + ")", err)
        self.assertIn("the cuda.redist(...) tag's urls", err)

    def test_an_archive_that_is_not_the_manifests_fails(self):
        err = self.archive_error
        self.assertIn("rules_cuda_stages: CUDA 13.0 (redistrib_%s.json): could not fetch cuda_cccl-linux-x86_64-" % RELEASE, err)
        self.assertIn("sha256 " + "1" * 64, err)
        self.assertIn("file://", err)


if __name__ == "__main__":
    sys.argv = [sys.argv[0], "-v"] + sys.argv[1:]
    checkout_lib.main()
