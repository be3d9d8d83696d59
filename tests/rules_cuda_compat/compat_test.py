"""The rules_cuda-style consumer (tests/rules_cuda_compat/consumer) built as a module of its own, CUDA off.

With --@rules_cuda_stages//cuda_rules:enable=false, as with rules_cuda's
--@rules_cuda//cuda:enable=false:
1. `bazel build //...` succeeds, skipping every cuda_library / cuda_objects /
   cuda_binary / cuda_test and every target marked requires_cuda(): nothing of
   CUDA is compiled and no toolkit is fetched;
2. a cc_binary that selects on :is_enabled builds without its kernel and runs
   the other branch (CUDA_NOT_ENABLED);
3. a requires_cuda() target named on the command line fails as incompatible;
4. rules_cuda's hand-made toolchain definitions (cuda_toolkit(), ...) fail
   naming the module extension that replaces them;
5. solver/, a library in rules_cuda 0.3's idioms whose GPU code is behind its
   own flag and rules_cuda's settings (@local_cuda//:valid_toolchain_found,
   :is_valid_toolchain_found, :rules_are_enabled, ...), builds with and without
   that flag: with it and CUDA on, its C code calls the CUDA runtime and its
   dynamically linked cc_test links (the runtime's default serves both link
   modes); with it and CUDA off, the whole module builds its CPU path.
The same targets with CUDA on are built and tested by the root module
(//tests/rules_cuda_compat:consumer_tests, compat_analysis_tests).
"""

import os
import shutil
import subprocess
import unittest

from tests.e2e import checkout_lib

DISABLED = "--@rules_cuda_stages//cuda_rules:enable=false"
GPU = "--//solver:gpu=True"


class CompatTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = os.environ["TEST_TMPDIR"]
        root = os.path.join(tmp, "checkout", "rules_cuda_stages")
        shutil.copytree(
            checkout_lib.source_workspace(),
            root,
            symlinks=True,
            ignore=shutil.ignore_patterns("bazel-*", ".git", "user.bazelrc", "MODULE.bazel.lock"),
        )
        cls.consumer = os.path.join(root, "tests", "rules_cuda_compat", "consumer")
        cls.output_base = os.path.join(tmp, "output_base")
        try:
            cls.build = cls._bazel("build", DISABLED, "//...")
            cls.build_gpu_flag_cuda_off = cls._bazel("build", DISABLED, GPU, "//...")
            # What the builds with CUDA off fetched (the build with CUDA on below fetches a toolkit).
            external = os.path.join(cls._bazel("info", "output_base").stdout.strip(), "external")
            cls.fetched_cuda_off = [d for d in os.listdir(external) if "cuda_13" in d] if os.path.isdir(external) else []
            cls.build_gpu = cls._bazel("build", GPU, "--@rules_cuda_stages//cuda_rules:archs=sm_90", "//solver/...")
            cls.gpu_bin = cls._bazel("info", GPU, "--@rules_cuda_stages//cuda_rules:archs=sm_90", "bazel-bin").stdout.strip()
            cls.run_main = cls._bazel("run", DISABLED, "//if_cuda:main")
            cls.bin = cls._bazel("info", DISABLED, "bazel-bin").stdout.strip()
            cls.incompatible = cls._bazel("build", DISABLED, "//if_cuda:cuda_only")
            cls.windows_only = cls._bazel("build", "//solver:windows_runtime")
            os.makedirs(os.path.join(cls.consumer, "toolchain"))
            with open(os.path.join(cls.consumer, "toolchain", "BUILD.bazel"), "w") as f:
                f.write('load("@rules_cuda_stages//cuda_rules:defs.bzl", "cuda_toolkit")\n'
                        'cuda_toolkit(name = "cuda_toolkit", path = "/usr/local/cuda", version = "13.0")\n')
            cls.toolkit_macro = cls._bazel("build", "//toolchain:all")
        finally:
            cls._bazel("shutdown")

    @classmethod
    def _bazel(cls, *args):
        cmd = [checkout_lib.bazel_binary(), "--output_base=" + cls.output_base, args[0]]
        if args[0] not in ("shutdown",):
            cmd += checkout_lib.offline_flags()
        if args[0] in ("build", "run"):
            cmd += ["--repository_cache=" + checkout_lib.shared_repository_cache(), "--noshow_progress"]
        cmd += list(args[1:])
        env = dict(os.environ, HOME=os.environ["TEST_TMPDIR"])
        return subprocess.run(cmd, cwd=cls.consumer, env=env, capture_output=True, text=True)

    def test_build_of_everything_skips_cuda(self):
        self.assertEqual(self.build.returncode, 0, self.build.stderr[-4000:])
        # The rdc library, the kernels and the CUDA binaries were skipped...
        for path in ("rdc/liblibrdc.a", "basic/libkernel.a", "macros/main", "if_cuda/cuda_only"):
            self.assertFalse(os.path.exists(os.path.join(self.bin, path)), path)
        # ...the plain binary was built, and no toolkit was fetched.
        self.assertTrue(os.path.exists(os.path.join(self.bin, "if_cuda/main")))
        self.assertEqual(self.fetched_cuda_off, [], "toolkit repositories fetched with CUDA off")

    def test_select_on_is_enabled_takes_the_other_branch(self):
        self.assertEqual(self.run_main.returncode, 0, self.run_main.stderr[-3000:])
        self.assertIn("CUDA_NOT_ENABLED", self.run_main.stdout)

    def test_requires_cuda_target_is_incompatible(self):
        self.assertNotEqual(self.incompatible.returncode, 0)
        self.assertIn("//if_cuda:cuda_only", self.incompatible.stderr)
        self.assertIn("incompatible", self.incompatible.stderr)

    def test_gpu_flag_with_cuda_off_builds_everything_on_the_cpu_path(self):
        self.assertEqual(self.build_gpu_flag_cuda_off.returncode, 0, self.build_gpu_flag_cuda_off.stderr[-4000:])
        self.assertTrue(os.path.exists(os.path.join(self.bin, "solver/solver_test")))

    def test_gpu_flag_with_cuda_on_links_the_runtime_into_a_dynamic_test(self):
        self.assertEqual(self.build_gpu.returncode, 0, self.build_gpu.stderr[-4000:])
        test = os.path.join(self.gpu_bin, "solver/solver_test")
        needed = subprocess.run(["readelf", "-d", test], capture_output=True, text=True).stdout
        # Linked dynamically (Bazel's default for tests), the runtime too: the
        # static runtime's symbols are hidden from the library's shared object.
        self.assertIn("libsolver.so", needed)
        self.assertIn("libcudart.so", needed)
        # The kernel was compiled in stages.
        self.assertTrue(os.path.exists(os.path.join(self.gpu_bin, "solver/libaxpy_kernel.a")), os.listdir(os.path.join(self.gpu_bin, "solver")))

    def test_a_windows_import_library_is_incompatible(self):
        self.assertNotEqual(self.windows_only.returncode, 0)
        self.assertIn("//solver:windows_runtime", self.windows_only.stderr)
        self.assertIn("incompatible", self.windows_only.stderr)

    def test_rules_cuda_toolchain_definitions_name_the_extension(self):
        self.assertNotEqual(self.toolkit_macro.returncode, 0)
        err = self.toolkit_macro.stderr
        self.assertIn("cuda_toolkit: rules_cuda's cuda_toolkit() defines a CUDA toolchain by hand", err)
        self.assertIn("cuda.toolkit(version = ...)", err)
        self.assertIn("docs/migrating.md", err)


if __name__ == "__main__":
    checkout_lib.main()
