"""registry_lib: which files, the deterministic archive, the entry, and bad input."""

import io
import json
import os
import tarfile
import tempfile
import unittest

from dev.registry import registry_lib as lib

MODULE = '''module(
    name = "rules_cuda_stages",
    version = "{version}",
    compatibility_level = 1,
)

bazel_dep(name = "rules_cc", version = "0.0.17")
'''

EXAMPLES = '''module(name = "rules_cuda_stages_examples", version = "0.0.0")

bazel_dep(name = "rules_cuda_stages", version = "{version}")
'''

PRESUBMIT = '''bcr_test_module:
  module_path: "examples"
  matrix:
    platform: ["ubuntu2204"]
    bazel: ["7.x", "8.x"]
  tasks:
    build_examples:
      name: "Build the examples"
      platform: ${{ platform }}
      bazel: ${{ bazel }}
      build_targets:
        - "//..."
'''


def _files(version="0.1.0", examples_version=None):
    return [
        lib.File("MODULE.bazel", data=MODULE.format(version=version).encode()),
        lib.File("LICENSE", data=b"Apache License\n"),
        lib.File("examples/MODULE.bazel", data=EXAMPLES.format(version=examples_version or version).encode()),
        lib.File("dev/release", data=b"#!/bin/sh\n", executable=True),
        lib.File("docs/link.md", symlink="../LICENSE"),
    ]


class TemplatesMixin:
    def setUp(self):
        self.tmp = tempfile.mkdtemp(dir=os.environ.get("TEST_TMPDIR"))
        self.bcr = os.path.join(self.tmp, ".bcr")
        os.makedirs(self.bcr)
        self._write(".bcr/metadata.template.json", json.dumps({
            "homepage": "https://github.com/o/r",
            "maintainers": [{"name": "m"}],
            "repository": ["github:o/r"],
            "versions": [],
            "yanked_versions": {},
        }))
        self._write(".bcr/source.template.json", json.dumps({
            "integrity": "",
            "strip_prefix": "{REPO}-{VERSION}",
            "url": "https://github.com/{OWNER}/{REPO}/releases/download/{TAG}/{REPO}-{TAG}.tar.gz",
        }))
        self._write(".bcr/presubmit.yml", PRESUBMIT)
        self.out = os.path.join(self.tmp, "out")

    def _write(self, rel, text, mode=0o644):
        path = os.path.join(self.tmp, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        return path


class ArchiveTest(unittest.TestCase):
    def test_same_files_same_bytes_in_any_order(self):
        files = _files()
        a = lib.build_archive(files, "r-0.1.0", 1700000000)
        b = lib.build_archive(list(reversed(files)), "r-0.1.0", 1700000000)
        self.assertEqual(a, b)
        self.assertNotEqual(a, lib.build_archive(files, "r-0.1.0", 1700000001))

    def test_members_are_normalized(self):
        data = lib.build_archive(_files(), "r-0.1.0", 1700000000)
        self.assertEqual(data[:3], b"\x1f\x8b\x08")
        self.assertEqual(data[3] & 0x08, 0, "no file name in the gzip header")
        self.assertEqual(data[4:8], b"\0\0\0\0", "no timestamp in the gzip header")
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            members = {m.name: m for m in tar.getmembers()}
            self.assertEqual(list(members), sorted(members))
            self.assertEqual(tar.extractfile("r-0.1.0/LICENSE").read(), b"Apache License\n")
        self.assertEqual(members["r-0.1.0/dev/release"].mode, 0o755)
        self.assertEqual(members["r-0.1.0/LICENSE"].mode, 0o644)
        self.assertTrue(members["r-0.1.0/docs/link.md"].issym())
        self.assertEqual(members["r-0.1.0/docs/link.md"].linkname, "../LICENSE")
        for m in members.values():
            self.assertEqual((m.uid, m.gid, m.uname, m.gname, m.mtime), (0, 0, "", "", 1700000000))

    def test_integrity_is_sri_sha256(self):
        # echo -n abc | openssl dgst -sha256 -binary | base64
        self.assertEqual(lib.integrity(b"abc"), "sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=")


class WhichFilesTest(TemplatesMixin, unittest.TestCase):
    def test_export_ignore_accepts_anchored_paths_only(self):
        self.assertEqual(lib.export_ignore_paths("# c\n/bench export-ignore\n/docs/x export-ignore\n*.sh text\n"),
                         ["bench", "docs/x"])
        for bad in ("bench export-ignore", "/bench/ export-ignore", "/b* export-ignore"):
            with self.assertRaisesRegex(lib.ReleaseError, "anchored paths"):
                lib.export_ignore_paths(bad)
        self.assertTrue(lib.is_export_ignored("docs/x/y.png", ["docs/x"]))
        self.assertFalse(lib.is_export_ignored("docs/xy.md", ["docs/x"]))

    def test_gitignore_subset(self):
        ignore = lib.GitIgnore("/bazel-*\n/examples/bazel-*\nMODULE.bazel.lock\n__pycache__/\n/.exec*.json\n")
        self.assertTrue(ignore.ignored("bazel-bin", True))
        self.assertFalse(ignore.ignored("tools/bazel-bin", True))
        self.assertTrue(ignore.ignored("examples/bazel-out", True))
        self.assertTrue(ignore.ignored("examples/MODULE.bazel.lock", False))
        self.assertTrue(ignore.ignored("tools/x/__pycache__", True))
        self.assertFalse(ignore.ignored("__pycache__", False), "dir-only pattern, a file")
        self.assertTrue(ignore.ignored(".exec1.json", False))
        with self.assertRaisesRegex(lib.ReleaseError, "negation"):
            lib.GitIgnore("!keep\n")

    def test_files_from_checkout(self):
        self._write(".gitignore", "/bazel-*\n__pycache__/\n")
        self._write(".gitattributes", "/bench export-ignore\n")
        self._write("MODULE.bazel", "m")
        self._write("tools/run", "#!/bin/sh\n", mode=0o755)
        self._write("tools/__pycache__/x.pyc", "junk")
        self._write("bench/corpus.cu", "x")
        os.symlink("/somewhere/else", os.path.join(self.tmp, "bazel-bin"))
        os.symlink("MODULE.bazel", os.path.join(self.tmp, "link"))
        os.makedirs(os.path.join(self.tmp, ".git"))
        self._write(".git/HEAD", "ref")
        files = {f.path: f for f in lib.files_from_checkout(self.tmp)}
        self.assertEqual(sorted(files), [".bcr/metadata.template.json", ".bcr/presubmit.yml",
                                         ".bcr/source.template.json", ".gitattributes", ".gitignore",
                                         "MODULE.bazel", "link", "tools/run"])
        self.assertTrue(files["tools/run"].executable)
        self.assertFalse(files["MODULE.bazel"].executable)
        self.assertEqual(files["link"].symlink, "MODULE.bazel")

    def test_symlink_out_of_the_checkout_is_refused(self):
        os.symlink("/etc/passwd", os.path.join(self.tmp, "passwd"))
        with self.assertRaisesRegex(lib.ReleaseError, "outside the checkout"):
            lib.files_from_checkout(self.tmp)


class EntryTest(TemplatesMixin, unittest.TestCase):
    def _entry(self, name, version="0.1.0"):
        with open(os.path.join(self.out, "modules", "rules_cuda_stages", version, name)) as f:
            return f.read()

    def test_writes_archive_and_entry(self):
        result = lib.release("0.1.0", self.out, _files(), 1700000000, self.bcr)
        self.assertEqual(os.path.basename(result["archive"]), "r-v0.1.0.tar.gz")
        with open(result["archive"], "rb") as f:
            data = f.read()
        source = json.loads(self._entry("source.json"))
        self.assertEqual(source, {
            "integrity": lib.integrity(data),
            "strip_prefix": "r-0.1.0",
            "url": "https://github.com/o/r/releases/download/v0.1.0/r-v0.1.0.tar.gz",
        })
        self.assertEqual(self._entry("MODULE.bazel"), MODULE.format(version="0.1.0"))
        self.assertEqual(self._entry("presubmit.yml"), PRESUBMIT)
        with open(os.path.join(self.out, "modules", "rules_cuda_stages", "metadata.json")) as f:
            metadata = json.load(f)
        self.assertEqual(metadata["versions"], ["0.1.0"])
        self.assertEqual(metadata["repository"], ["github:o/r"])

    def test_url_directory_gets_the_archive_name(self):
        result = lib.release("0.1.0", self.out, _files(), 0, self.bcr, url="file:///mirror/")
        self.assertEqual(result["url"], "file:///mirror/r-v0.1.0.tar.gz")

    def test_existing_metadata_keeps_its_versions_in_order(self):
        path = os.path.join(self.out, "modules", "rules_cuda_stages", "metadata.json")
        os.makedirs(os.path.dirname(path))
        with open(path, "w") as f:
            json.dump({"homepage": "kept", "versions": ["0.0.9", "0.2.0", "0.10.0"],
                       "yanked_versions": {"0.0.9": "bug"}}, f)
        lib.release("0.1.0", self.out, _files(), 0, self.bcr)
        with open(path) as f:
            metadata = json.load(f)
        self.assertEqual(metadata["versions"], ["0.0.9", "0.1.0", "0.2.0", "0.10.0"])
        self.assertEqual((metadata["homepage"], metadata["yanked_versions"]), ("kept", {"0.0.9": "bug"}))

    def test_same_release_twice_is_fine_a_changed_one_is_refused(self):
        lib.release("0.1.0", self.out, _files(), 0, self.bcr)
        lib.release("0.1.0", self.out, _files(), 0, self.bcr)
        with open(os.path.join(self.out, "r-v0.1.0.tar.gz"), "rb") as f:
            published = f.read()
        changed = _files() + [lib.File("NEW", data=b"x")]
        with self.assertRaisesRegex(lib.ReleaseError, "add-only"):
            lib.release("0.1.0", self.out, changed, 0, self.bcr)
        with open(os.path.join(self.out, "r-v0.1.0.tar.gz"), "rb") as f:
            self.assertEqual(f.read(), published, "the published archive is left alone")

    def test_version_must_match_module_bazel(self):
        with self.assertRaisesRegex(lib.ReleaseError, r'MODULE.bazel says version = "0.0.0", not "0.1.0"'):
            lib.release("0.1.0", self.out, _files(version="0.0.0"), 0, self.bcr)
        with self.assertRaisesRegex(lib.ReleaseError, "MAJOR.MINOR.PATCH"):
            lib.release("v0.1", self.out, _files(), 0, self.bcr)
        self.assertFalse(os.path.exists(self.out), "nothing is written for bad input")

    def test_test_module_must_be_inside_and_depend_on_the_release(self):
        with self.assertRaisesRegex(lib.ReleaseError, "must name the release version"):
            lib.release("0.1.0", self.out, _files(examples_version="0.0.0"), 0, self.bcr)
        without = [f for f in _files() if not f.path.startswith("examples/")]
        with self.assertRaisesRegex(lib.ReleaseError, "not a module inside the archive"):
            lib.release("0.1.0", self.out, without, 0, self.bcr)

    def test_test_module_imports_must_be_in_the_archive(self):
        rc = lib.File("examples/.bazelrc", data=b"import %workspace%/../tools/x.bazelrc\ntry-import %workspace%/u\n")
        with self.assertRaisesRegex(lib.ReleaseError, "imports tools/x.bazelrc, which is not in the archive"):
            lib.release("0.1.0", self.out, _files() + [rc], 0, self.bcr)
        lib.release("0.1.0", self.out, _files() + [rc, lib.File("tools/x.bazelrc", data=b"")], 0, self.bcr)

    def test_presubmit_tasks_need_a_bazel_version(self):
        self.assertEqual(lib.check_presubmit(PRESUBMIT), [])
        self.assertEqual(lib.test_module_path(PRESUBMIT), "examples")
        broken = PRESUBMIT.replace("      bazel: ${{ bazel }}\n", "")
        self.assertEqual(lib.check_presubmit(broken),
                         ["task 'build_examples' sets no `bazel:` version (the BCR requires one)"])
        self._write(".bcr/presubmit.yml", broken)
        with self.assertRaisesRegex(lib.ReleaseError, "sets no `bazel:`"):
            lib.release("0.1.0", self.out, _files(), 0, self.bcr)

    def test_unknown_placeholder_is_refused(self):
        self._write(".bcr/source.template.json", json.dumps({"url": "https://x/{BRANCH}.tgz", "strip_prefix": "p"}))
        with self.assertRaisesRegex(lib.ReleaseError, "unknown placeholder"):
            lib.release("0.1.0", self.out, _files(), 0, self.bcr)


class RepositoryTemplatesTest(unittest.TestCase):
    """The real .bcr/ of this repository passes the same checks."""

    def test_real_templates(self):
        from runfiles import runfiles  # noqa: PLC0415

        r = runfiles.Create()
        bcr = os.path.dirname(r.Rlocation("rules_cuda_stages/.bcr/presubmit.yml"))
        with open(os.path.join(bcr, "presubmit.yml")) as f:
            presubmit = f.read()
        self.assertEqual(lib.check_presubmit(presubmit), [])
        self.assertEqual(lib.test_module_path(presubmit), "examples")
        self.assertIn("8.x", presubmit)
        self.assertIn("7.x", presubmit)
        with open(os.path.join(bcr, "metadata.template.json")) as f:
            owner, repo = lib.repository(json.load(f))
        with open(os.path.join(bcr, "source.template.json")) as f:
            source = json.loads(lib.substitute(f.read(), owner, repo, "0.1.0"))
        self.assertEqual(source["url"], "https://github.com/%s/%s/releases/download/v0.1.0/%s-v0.1.0.tar.gz"
                         % (owner, repo, repo))
        self.assertEqual(source["strip_prefix"], "%s-0.1.0" % repo)


if __name__ == "__main__":
    unittest.main()
