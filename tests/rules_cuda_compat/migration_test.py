"""A rules_cuda 0.2 project after docs/migrating.md's rewrite, built as the root module (nested Bazel).

tests/rules_cuda_compat/migrated keeps rules_cuda's tag
(cuda.local_toolchain(name = "local_cuda", toolkit_path = "")) and its
@local_cuda labels, and its other dependencies in WORKSPACE. Checked:
1. with Bazel 7's WORKSPACE on next to MODULE.bazel (--enable_workspace), the
   project builds: a kernel in a .cc file, Thrust from @local_cuda, a header
   from a WORKSPACE repository;
2. the tag makes the installed toolkit the default: the stages run its nvcc
   (where this machine has one; where it has none, the build fails naming the
   tag and the fix);
3. --@rules_cuda_stages//cuda_rules:toolkit=13.0 still wins, and then
   @local_cuda//:<label> is the hermetic toolkit's (the @cuda hub under
   rules_cuda's name), so headers and compiler agree; rules_cuda's
   examples/cublas shape (a .cpp over @local_cuda//:cublas alone) builds.
"""

import os
import shutil
import subprocess
import unittest

from tests.e2e import checkout_lib

HERMETIC = "--@rules_cuda_stages//cuda_rules:toolkit=13.0"

# Offline (tools/bazelw's Debian Bazel): what Bazel 7's WORKSPACE suffix would
# download from GitHub, from Debian's packaged copies (the same paths its
# /etc/bazel/bazelrc gives --override_module). With network access Bazel
# fetches them itself.
_OFFLINE_WORKSPACE = """\
local_repository(name = "bazel_skylib", path = "/usr/share/bazel/tools/skylib")
local_repository(name = "rules_java", path = "/usr/share/bazel/rules/java")
local_repository(name = "rules_cc", path = "/usr/share/bazel/rules/cc")
local_repository(name = "platforms", path = "/usr/share/bazel/tools/platforms")
local_repository(name = "rules_license", path = "/usr/share/bazel/rules/license")
local_repository(name = "rules_python", path = "/usr/share/bazel/rules/python")
local_repository(name = "rules_proto", path = "/usr/share/bazel/rules/proto")
local_repository(name = "bazel_features", path = "/usr/share/bazel/tools/features")

"""


class MigrationTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = os.environ["TEST_TMPDIR"]
        src = checkout_lib.source_workspace()
        cls.project = os.path.join(tmp, "project")
        shutil.copytree(os.path.join(src, "tests", "rules_cuda_compat", "migrated"), cls.project)
        with open(os.path.join(cls.project, "MODULE.bazel"), "a") as f:
            f.write('\nlocal_path_override(module_name = "rules_cuda_stages", path = "%s")\n' % src)
        cls.offline = checkout_lib.offline_flags()
        if cls.offline:
            with open(os.path.join(cls.project, "WORKSPACE")) as f:
                workspace = f.read()
            with open(os.path.join(cls.project, "WORKSPACE"), "w") as f:
                f.write(_OFFLINE_WORKSPACE + workspace)
            with open(os.path.join(cls.project, ".bazelrc"), "w") as f:
                f.write("import %s\n" % os.path.join(src, "tools", "offline", "offline.bazelrc"))
        cls.output_base = os.path.join(tmp, "output_base")
        try:
            cls.build = cls._bazel("build", "//...")
            cls.plan = cls._bazel("aquery", 'mnemonic("CudaPlan", //:kernels)')
            cls.hermetic_build = cls._bazel("build", HERMETIC, "//...", "//:cublas_main")
            cls.hermetic_plan = cls._bazel("aquery", HERMETIC, 'mnemonic("CudaPlan", //:kernels)')
            cls.hermetic_deps = cls._bazel("cquery", HERMETIC, "deps(//:main)")
        finally:
            cls._bazel("shutdown")

    @classmethod
    def _bazel(cls, command, *args):
        cmd = [checkout_lib.bazel_binary(), "--output_base=" + cls.output_base, command]
        if command != "shutdown":
            # WORKSPACE on next to MODULE.bazel (Bazel 7's default; after
            # --config=offline, which turns it off).
            cmd += cls.offline + ["--enable_workspace", "--noshow_progress"]
        if command == "build":
            cmd += ["--repository_cache=" + checkout_lib.shared_repository_cache()]
        cmd += list(args)
        env = dict(os.environ, HOME=os.environ["TEST_TMPDIR"])
        return subprocess.run(cmd, cwd=cls.project, env=env, capture_output=True, text=True)

    @staticmethod
    def _nvcc(aquery):
        return [w for w in aquery.stdout.split() if "--nvcc=" in w]

    def test_default_is_the_installed_toolkit(self):
        nvcc = self._nvcc(self.plan)
        if self.build.returncode != 0 and "no CUDA toolkit was found" in self.build.stderr:
            # No local toolkit on this machine: the message names the tag and the fix.
            for part in ["toolkit=local (the default, from rules_cuda's cuda.local_toolchain(name = \"local_cuda\")",
                         "--@rules_cuda_stages//cuda_rules:toolkit=13.0"]:
                self.assertIn(part, self.build.stderr)
            return
        self.assertEqual(self.build.returncode, 0, self.build.stderr[-6000:])
        self.assertTrue(nvcc, self.plan.stdout[-2000:] + self.plan.stderr[-2000:])
        for arg in nvcc:
            self.assertIn("cuda_local/bin/nvcc", arg)

    def test_hermetic_toolkit_on_request_with_the_same_labels(self):
        self.assertEqual(self.hermetic_build.returncode, 0, self.hermetic_build.stderr[-6000:])
        nvcc = self._nvcc(self.hermetic_plan)
        self.assertTrue(nvcc)
        for arg in nvcc:
            self.assertIn("cuda_13_0_x86_64/bin/nvcc", arg)
        # @local_cuda//:thrust is the hub's, which selects the hermetic toolkit's.
        deps = self.hermetic_deps.stdout
        self.assertIn("@local_cuda//:thrust", deps)
        self.assertRegex(deps, r"cuda_13_0_x86_64//:thrust")
        self.assertNotRegex(deps, r"cuda_local//:thrust")


if __name__ == "__main__":
    checkout_lib.main()
