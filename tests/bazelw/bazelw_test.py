"""Unit tests of tools/bazelw's decisions, run by sourcing its functions in bash."""

import os
import shlex
import stat
import subprocess
import tempfile
import textwrap
import time
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


class PinsTest(unittest.TestCase):
    """The pins that stop a drifted Debian suite before anything is installed."""

    def test_bazel_pin_is_the_bazelversion(self):
        with open(runfiles.Create().Rlocation("rules_cuda_stages/.bazelversion")) as f:
            wanted = f.read().strip()
        _, out, _ = bash("pin_pattern bazel-bootstrap")
        self.assertEqual(out.strip(), wanted + "+ds-*")

    def test_every_addon_and_set_has_pins(self):
        _, out, _ = bash('for s in root toolchain $ADDONS; do echo "$s $(pinned_packages $s | wc -l)"; done')
        counts = dict(line.split() for line in out.splitlines())
        for name, count in counts.items():
            self.assertGreater(int(count), 0, name)

    def _check(self, versions, pin_set="root"):
        # candidate_version asks apt in the root filesystem; here a table.
        table = " ".join("[%s]=%s" % kv for kv in versions.items())
        script = "declare -A V=(%s); candidate_version() { echo \"${V[$2]:-}\"; }; " % table
        return bash(script + "check_pins /nonexistent testing %s" % pin_set)

    def test_matching_versions_pass(self):
        status, out, _ = self._check({"bazel-bootstrap": "7.7.1+ds-8+b1", "bazel-bootstrap-source": "7.7.1+ds-8", "python3": "3.13.9-3"})
        self.assertEqual((status, out), (0, ""))

    def test_a_moved_package_names_wanted_and_found(self):
        status, out, _ = self._check({"bazel-bootstrap": "8.4.2+ds-1", "bazel-bootstrap-source": "8.4.2+ds-1", "python3": "3.13.9-3"})
        self.assertEqual(status, 1)
        self.assertEqual(
            out.splitlines(),
            [
                "bazel-bootstrap: wanted 7.7.1+ds-*, Debian testing has 8.4.2+ds-1",
                "bazel-bootstrap-source: wanted 7.7.1+ds-*, Debian testing has 8.4.2+ds-1",
            ],
        )

    def test_a_removed_package_is_named(self):
        status, out, _ = self._check({"clangd-21": "1:21.1.8-13"}, pin_set="clang")
        self.assertEqual(status, 1)
        self.assertEqual(out.strip(), "clang-21: wanted 1:21.*, Debian testing has no such package")

    def test_pins_or_die_gives_the_fix(self):
        script = 'candidate_version() { echo 8.0.0+ds-1; }; pins_or_die /x testing root "Fix: do the thing."'
        status, _, err = bash(script)
        self.assertEqual(status, 2)
        self.assertIn("[bazelw] error: Debian testing no longer has the versions this recipe was written for:", err)
        self.assertIn("bazel-bootstrap: wanted 7.7.1+ds-*, Debian testing has 8.0.0+ds-1", err)
        self.assertIn("Fix: do the thing.", err)


class ProvisionLogTest(unittest.TestCase):
    def test_a_failed_step_prints_its_own_lines(self):
        tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        log = os.path.join(tmp, "provision.log")
        with open(log, "w") as f:
            f.write("E: an error of an earlier step\n")
        script = (
            'LOG="%s"; from=$(log_size); '
            'logged sh -c "echo Reading package lists...; echo \'E: Unable to satisfy dependencies. Reached two conflicting assignments:\'; '
            'echo \'   1. libgcc-14-dev:amd64=14.2.0-19 is selected for install\'; exit 100" || '
            'step_failed "$from" "installing clang failed." "Fix: something."' % log
        )
        status, _, err = bash(script)
        self.assertEqual(status, 2)
        self.assertIn("[bazelw] error: installing clang failed.", err)
        self.assertIn("| E: Unable to satisfy dependencies. Reached two conflicting assignments:", err)
        self.assertNotIn("an earlier step", err)
        self.assertIn("(whole log: %s)" % log, err)


class AddonTest(unittest.TestCase):
    """An addon that cannot be installed is recorded, and nothing stops."""

    def setUp(self):
        self.root = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.env = {"BAZELW_CACHE_DIR": self.root}

    def _try(self, apt_status):
        script = (
            'LOG="$BAZELW_CACHE_DIR/log"; : >"$LOG"; R="$BAZELW_CACHE_DIR/r"; mkdir -p "$R"; '
            'candidate_version() { case "$2" in bazel-stardoc) echo 0.8.1-2;; *) echo 1:21.1.8-13;; esac; }; '
            'in_new_root() { echo "E: Unable to locate package $5"; return %d; }; '
            'try_addon "$R" stardoc; echo "status $?"; '
            'echo "installed: $(cat "$R/$ADDONS_NAME" 2>/dev/null)"; echo "missing: $(cat "$R/$ADDONS_MISSING_NAME" 2>/dev/null)"; '
            'echo "module: $(readlink "$R$MODULES_DIR/stardoc")"' % apt_status
        )
        return bash(script, env=self.env)

    def test_an_addon_that_fails_is_recorded_and_does_not_stop(self):
        status, out, err = self._try(100)
        self.assertEqual(status, 0, err)
        self.assertIn("status 0", out)
        self.assertIn("installed: \n", out)
        self.assertIn("missing: stardoc apt-get install bazel-stardoc failed: E: Unable to locate package", out)
        self.assertIn("module: /opt/rules_cuda_stages/offline_modules/stardoc_missing", out)
        self.assertIn("addon stardoc NOT installed", err)
        self.assertIn("tools/bazelw --bazelw-addon stardoc", err)

    def test_an_addon_that_installs_is_recorded(self):
        status, out, err = self._try(0)
        self.assertEqual(status, 0, err)
        self.assertIn("installed: stardoc\n", out)
        self.assertIn("missing: \n", out)


class SystemRcTest(unittest.TestCase):
    """The root filesystem's /etc/bazel/bazelrc, without Debian's deprecated --host_javabase."""

    DEBIAN_RC = textwrap.dedent(
        """\
        try-import /etc/bazel.bazelrc
        startup --install_base=/usr/share/bazel
        startup --trust_install_base
        build --host_javabase=@local_jdk//:jdk
        build --sandbox_debug

        # Bzlmod offline system overrides
        common --override_module=platforms=/usr/share/bazel/tools/platforms
        common --override_module=rules_cc=/usr/share/bazel/rules/cc
        """
    )

    def test_only_that_line_goes_and_a_second_run_changes_nothing(self):
        root = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        rc = os.path.join(root, "etc", "bazel", "bazelrc")
        os.makedirs(os.path.dirname(rc))
        with open(rc, "w") as f:
            f.write(self.DEBIAN_RC)
        status, _, err = bash("fix_system_rc %s" % shlex.quote(root))
        self.assertEqual(status, 0, err)
        with open(rc) as f:
            first = f.read()
        lines = first.splitlines()
        self.assertNotIn("build --host_javabase=@local_jdk//:jdk", lines)
        self.assertTrue(lines[0].startswith("# tools/bazelw removed Debian's deprecated"), first)
        kept = [line for line in self.DEBIAN_RC.splitlines() if not line.startswith("build --host_javabase")]
        self.assertEqual(lines[3:], kept)
        self.assertTrue(all(line.startswith("# ") for line in lines[:3]), first)
        self.assertEqual(stat.S_IMODE(os.stat(rc).st_mode), 0o644)
        status, _, err = bash("fix_system_rc %s" % shlex.quote(root))
        self.assertEqual(status, 0, err)
        with open(rc) as f:
            self.assertEqual(f.read(), first)
        self.assertEqual(os.listdir(os.path.dirname(rc)), ["bazelrc"])

    def test_a_root_without_the_file_is_left_alone(self):
        root = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        status, _, err = bash("fix_system_rc %s" % shlex.quote(root))
        self.assertEqual((status, os.listdir(root)), (0, []), err)


class PathsTest(unittest.TestCase):
    """Which absolute path a command names gets which mount, or which error (path_binds)."""

    def setUp(self):
        tmp = os.path.realpath(tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR")))
        self.tmp = tmp
        self.ws = os.path.join(tmp, "work", "checkout")
        self.cache = os.path.join(tmp, "cache")
        self.user_root = os.path.join(self.cache, "output_user_root")
        self.cuda = os.path.join(tmp, "cuda-13.0")
        self.data = os.path.join(tmp, "host", "data")
        for d in (self.ws, self.user_root, self.cuda, self.data):
            os.makedirs(d)
        with open(os.path.join(self.data, "exec.log"), "w") as f:
            f.write("{}\n")
        os.symlink(self.data, os.path.join(tmp, "link"))
        # The root filesystem's own files, which commands may name.
        for f in ("opt/rules_cuda_stages/bin/gcc", "usr/bin/clang-21"):
            path = os.path.join(self.cache, "root", f)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").close()

    def binds(self, *args, env=None):
        """Returns (status, [(src, dst)...], stderr) of path_binds ARGS; self.forks: the subprocesses it ran."""
        script = (
            "VISIBLE_DIRS=({ws} {ur} {cuda} /.bazelw-host /dev /proc /sys); MOUNTED_DIRS=({ws} {ur} {cuda}); "
            # Counts the subprocesses path classification starts.
            'realpath() {{ echo fork >&2; command realpath "$@"; }}; '
            'path_binds {args}; printf "%s\\n" ${{PATH_BINDS[@]+"${{PATH_BINDS[@]}}"}}'
        ).format(
            ws=shlex.quote(self.ws),
            ur=shlex.quote(self.user_root),
            cuda=shlex.quote(self.cuda),
            args=" ".join(shlex.quote(a) for a in args),
        )
        full_env = {"BAZELW_CACHE_DIR": self.cache}
        full_env.update(env or {})
        status, out, err = bash(script, env=full_env)
        self.forks = err.count("fork\n")
        err = err.replace("fork\n", "")
        words = out.split("\n")[:-1]
        return status, list(zip(words[0::2], words[1::2])), err

    def assertBinds(self, args, expected):
        status, binds, err = self.binds(*args)
        self.assertEqual(status, 0, err)
        self.assertEqual(binds, expected)

    def assertRefused(self, args, path, *words):
        status, binds, err = self.binds(*args)
        self.assertEqual((status, binds), (2, []), err)
        lines = err.strip().splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith("[bazelw] error: tools/bazelw cannot show Bazel %s: " % path), lines[0])
        self.assertIn("Bazel runs in its own root filesystem and sees the checkout", lines[0])
        self.assertIn('docs/bazelw.md, "Paths outside the checkout"', lines[0])
        for word in words:
            self.assertIn(word, lines[0])

    def test_no_path_no_mount_and_no_subprocess(self):
        self.assertBinds(["build", "--config=x", "//tools/...", "-//tests/...", "--platforms=//p", "-c", "opt", "--copt=-I/usr/x", "--"], [])
        self.assertEqual(self.forks, 0)
        self.assertBinds(["build", "--disk_cache=" + self.data], [(self.data, self.data)])
        self.assertEqual(self.forks, 1)

    def test_the_directory_holding_a_new_file(self):
        self.assertBinds(["run", "//tools/cache_report", "--", os.path.join(self.data, "new.log")], [(self.data, self.data)])

    def test_an_option_value_the_deepest_existing_ancestor(self):
        self.assertBinds(["build", "--execution_log_json_file=%s/x/y/exec.json" % self.data], [(self.data, self.data)])

    def test_an_existing_directory_itself(self):
        self.assertBinds(["build", "--disk_cache=" + self.data + "/"], [(self.data, self.data)])

    def test_program_arguments_after_dashdash_once_each_ancestors_first(self):
        host = os.path.dirname(self.data)
        args = ["run", "//tools/nvcc_plan", "--", "--run", "--table=%s/t.csv" % self.data, "--", "-c", self.data + "/t.cu", "-o", self.data + "/t.o"]
        self.assertBinds(args, [(self.data, self.data)])
        self.assertBinds(args + [host + "/other.txt"], [(host, host)])

    def test_a_symbolic_link_on_the_way_mounts_its_target_at_the_named_path(self):
        link = os.path.join(self.tmp, "link")
        self.assertBinds(["run", "//t", "--", link + "/exec.log"], [(self.data, link)])

    def test_what_bazel_sees_already(self):
        paths = [self.ws + "/x", self.user_root + "/y/z", self.cuda + "/bin/nvcc", "/dev/null", "--bazelrc=/dev/null", "/.bazelw-host/tmp/x"]
        self.assertBinds(["build"] + paths, [])

    def test_root_filesystem_files_are_left_alone(self):
        self.assertBinds(["build", "--repo_env=CC=/opt/rules_cuda_stages/bin/gcc", "--repo_env=HOST_CLANG=/usr/bin/clang-21", "/usr/bin/clang-21"], [])

    def test_key_value_options_only_for_what_the_host_has(self):
        self.assertBinds(["build", "--action_env=LOG=%s/exec.log" % self.data], [(self.data, self.data)])
        self.assertBinds(["build", "--action_env=LOG=%s/nothing/here" % self.data, "--action_env=PATH=/a:/b"], [])

    def test_a_root_filesystem_directory_is_refused(self):
        self.assertRefused(["run", "//t", "--", "/usr/share/bazelw-nonexistent/x"], "/usr/share/bazelw-nonexistent/x", "/usr/share, is part of the root filesystem's own /usr")
        self.assertRefused(["build", "--disk_cache=/etc/bazelw-nonexistent"], "/etc/bazelw-nonexistent", "/etc, is part of the root filesystem's own /etc")
        self.assertRefused(["build", "--disk_cache=/var/bazelw-nonexistent"], "/var/bazelw-nonexistent", "/var, is where the root filesystem has its own /var/lib")

    def test_an_ancestor_of_the_checkout_is_refused(self):
        work = os.path.dirname(self.ws)
        self.assertRefused(["build", "--disk_cache=%s/cache" % work], work + "/cache", "an ancestor of %s, which is mounted there" % self.ws)

    def test_a_path_of_which_nothing_exists_is_refused(self):
        self.assertRefused(["build", "--disk_cache=/bazelw-nonexistent/cache"], "/bazelw-nonexistent/cache", "the host's root (nothing more of the path exists on the host)")

    def test_the_wrappers_cache_is_refused(self):
        self.assertRefused(["run", "//t", "--", self.cache + "/root/x"], self.cache + "/root/x", "tools/bazelw's own cache")

    def test_the_first_refused_path_stops_the_command(self):
        status, binds, err = self.binds("build", "--disk_cache=" + self.data, "/usr/share/bazelw-nonexistent/x", "/etc/bazelw-nonexistent")
        self.assertEqual((status, binds, len(err.strip().splitlines())), (2, [], 1), err)
        self.assertIn("/usr/share/bazelw-nonexistent/x", err)

    def test_can_be_turned_off(self):
        status, binds, err = self.binds("run", "//t", "--", "/usr/share/bazelw-nonexistent/x", self.data, env={"BAZELW_PATHS": "off"})
        self.assertEqual((status, binds), (0, []), err)


class ConcurrentProvisionTest(unittest.TestCase):
    """Two bazelw on a fresh machine: one provisions, the other waits and says so."""

    def test_one_provisions_the_other_waits_and_uses_it(self):
        cache = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        # provision() stands in for the real one (minutes, root): it takes 2 s,
        # counts its runs, and makes a root filesystem with the stamp.
        script = (
            'provision() { echo run >>"$BAZELW_CACHE_DIR/runs"; sleep 2; mkdir -p "$ROOTFS"; '
            'echo "$RECIPE_VERSION" >"$ROOTFS/$STAMP_NAME"; }; install_addons() { :; }; '
            'ensure_provisioned; echo "ready $(cat "$ROOTFS/$STAMP_NAME")"'
        )
        env = {"PATH": "/usr/bin:/bin", "HOME": cache, "BAZELW_CACHE_DIR": cache}
        cmd = ["bash", "-c", 'set -euo pipefail; source "$1"; shift; ' + script, "bash", BAZELW]
        first = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(100):
            if os.path.exists(os.path.join(cache, "runs")):
                break
            time.sleep(0.05)
        second = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out1, err1 = first.communicate(timeout=60)
        out2, err2 = second.communicate(timeout=60)
        self.assertEqual((first.returncode, second.returncode), (0, 0), err1 + err2)
        with open(os.path.join(cache, "runs")) as f:
            self.assertEqual(f.read(), "run\n", "provisioned more than once")
        self.assertIn("another bazelw is provisioning", err2)
        self.assertIn("the other bazelw finished provisioning; using it", err2)
        self.assertNotIn("waiting", err1)
        self.assertTrue(out1.startswith("ready ") and out2.startswith("ready "))


if __name__ == "__main__":
    unittest.main()
