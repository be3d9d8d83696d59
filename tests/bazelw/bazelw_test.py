"""Unit tests of tools/bazelw's decisions, run by sourcing its functions in bash."""

import os
import stat
import subprocess
import tempfile
import textwrap
import unittest

from runfiles import runfiles

BAZELW = runfiles.Create().Rlocation("rules_cuda_stages/tools/bazelw")


def bash(script, env=None):
    """Runs `script` in bash after sourcing bazelw; returns (status, stdout, stderr)."""
    full_env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("TEST_TMPDIR", "/tmp")}
    full_env.update(env or {})
    proc = subprocess.run(
        ["bash", "-c", 'set -euo pipefail; source "$1"; shift; ' + script, "bash", BAZELW],
        env=full_env,
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.returncode, proc.stdout, proc.stderr


def write_executable(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(textwrap.dedent(text))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


class CommandLineTest(unittest.TestCase):
    def test_command_word_skips_startup_options(self):
        _, out, _ = bash('command_word --output_base=/x --batch build //...')
        self.assertEqual(out.strip(), "build")

    def test_command_word_is_empty_without_a_command(self):
        _, out, _ = bash("command_word --version")
        self.assertEqual(out.strip(), "")

    def test_offline_config_goes_right_after_the_command(self):
        _, out, _ = bash('with_offline_config --batch test //... --jobs=2 | tr "\\0" " "')
        self.assertEqual(out.split(), ["--batch", "test", "--config=offline", "//...", "--jobs=2"])

    def test_offline_bazel8_config_comes_with_bazel8_and_bazel9(self):
        for config in ("bazel8", "bazel9"):
            _, out, _ = bash('with_offline_config test --config=%s //docs:all | tr "\\0" " "' % config)
            self.assertEqual(out.split(), ["test", "--config=offline", "--config=offline_bazel8", "--config=" + config, "//docs:all"])
        # A target named like the flag after `--` is not the flag.
        _, out, _ = bash('with_offline_config test -- --config=bazel9 | tr "\\0" " "')
        self.assertEqual(out.split(), ["test", "--config=offline", "--", "--config=bazel9"])

    def test_offline_config_is_not_added_to_startup_only_calls(self):
        _, out, _ = bash('with_offline_config --version | tr "\\0" " "')
        self.assertEqual(out.split(), ["--version"])

    def test_unknown_mode_is_a_clear_error(self):
        status, _, err = bash("main build //...", env={"BAZELW_MODE": "sideways"})
        self.assertEqual(status, 2)
        self.assertIn("BAZELW_MODE must be auto, native or chroot, not 'sideways'", err)

    def test_mirror_override(self):
        _, out, _ = bash("host_mirror", env={"BAZELW_MIRROR": "http://mirror.invalid/debian"})
        self.assertEqual(out.strip(), "http://mirror.invalid/debian")


class FindCudaTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.toolkit = os.path.join(self.tmp, "cuda-42.0")
        write_executable(os.path.join(self.toolkit, "bin", "nvcc"), "#!/bin/sh\nexit 0\n")
        with open(os.path.join(self.toolkit, "bin", "nvcc.profile"), "w") as f:
            f.write("TOP = $(_HERE_)/..\n")

    def test_cuda_path_wins(self):
        _, out, _ = bash("find_cuda", env={"CUDA_PATH": self.toolkit})
        self.assertEqual(out.strip(), os.path.realpath(self.toolkit))

    def test_a_shim_directory_is_not_a_toolkit(self):
        # /usr/local/bin/nvcc may be a script that execs the real one: its
        # parent is not a toolkit root (no nvcc.profile next to it).
        shim_root = os.path.join(self.tmp, "usr_local")
        write_executable(os.path.join(shim_root, "bin", "nvcc"), "#!/bin/sh\nexit 1\n")
        status, out, _ = bash(
            "find_cuda || echo none",
            env={"CUDA_PATH": shim_root, "PATH": "/usr/bin:/bin"},
        )
        self.assertEqual(status, 0)
        self.assertNotEqual(out.strip(), os.path.realpath(shim_root))

    def test_nvcc_shim_on_path_is_followed_to_the_real_toolkit(self):
        shim_dir = os.path.join(self.tmp, "shims", "bin")
        write_executable(
            os.path.join(shim_dir, "nvcc"),
            """\
            #!/bin/sh
            # Like nvcc --dryrun: the plan's environment lines go to stderr.
            echo "#\\$ _HERE_=%s/bin" >&2
            """ % self.toolkit,
        )
        _, out, _ = bash("find_cuda", env={"PATH": shim_dir + ":/usr/bin:/bin"})
        self.assertEqual(out.strip(), os.path.realpath(self.toolkit))


if __name__ == "__main__":
    unittest.main()
