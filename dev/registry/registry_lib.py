"""Release archive and Bazel registry entry of rules_cuda_stages (dev/release).

The archive holds the files of one commit (or, for tests, of a checkout on
disk), minus the paths `.gitattributes` marks `export-ignore`, under the
directory named by `.bcr/source.template.json`'s strip_prefix. It is
deterministic: entries sorted by path, each with the same fixed owner (0/0, no
names), permission (0644, or 0755 for executables) and modification time,
gzip-compressed without a file name or timestamp. The same files give the same
bytes, and so the same integrity.

The registry entry follows the Bazel Central Registry's layout:

    modules/<module>/metadata.json
    modules/<module>/<version>/MODULE.bazel   (the archive's MODULE.bazel)
    modules/<module>/<version>/source.json    (url, integrity, strip_prefix)
    modules/<module>/<version>/presubmit.yml  (.bcr/presubmit.yml)

The templates in .bcr/ are the ones bazel-contrib/publish-to-bcr reads, with
its placeholders {OWNER}, {REPO}, {VERSION} and {TAG}: one description serves
both publishing to the BCR and writing an entry into any other registry.
"""

import base64
import fnmatch
import gzip
import hashlib
import io
import json
import os
import re
import stat
import subprocess
import tarfile

MODULE_NAME = "rules_cuda_stages"

_VERSION_RE = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+$")
_GITHUB_RE = re.compile(r"^github:([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)$")


class ReleaseError(Exception):
    """Bad input: the message says what is wrong and how to fix it."""


class File:
    """One archive member: a regular file (data, executable) or a symlink (target)."""

    def __init__(self, path, data=None, executable=False, symlink=None):
        self.path = path
        self.data = data
        self.executable = executable
        self.symlink = symlink

    def __repr__(self):
        return "File(%r)" % self.path


# ---------------------------------------------------------------------------
# Which files


def export_ignore_paths(gitattributes_text):
    """The paths `.gitattributes` marks export-ignore, without their leading '/'.

    Only anchored literal paths (`/bench export-ignore`) are accepted: they mean
    the same to git archive and to this module, which checks that against git
    whenever the archive is made from a commit (see files_from_git).
    """
    paths = []
    for number, line in enumerate(gitattributes_text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        pattern, *attrs = line.split()
        if "export-ignore" not in attrs:
            continue
        if not pattern.startswith("/") or any(c in pattern for c in "*?[]\\!") or pattern.endswith("/"):
            raise ReleaseError(
                ".gitattributes line %d: %r: dev/release understands only anchored paths without "
                "wildcards or a trailing slash for export-ignore, e.g. `/bench export-ignore`" % (number, line)
            )
        paths.append(pattern[1:])
    return paths


def is_export_ignored(path, ignored):
    return any(path == p or path.startswith(p + "/") for p in ignored)


class GitIgnore:
    """The subset of .gitignore this repository uses, to pick a checkout's files without git.

    Supported: comments, `name` (matches a file or directory of that name at any
    depth), `a/b` and `/a` (anchored at the root), a trailing `/` (directories
    only), and `*`, `?`, `[...]` within one path component.
    """

    def __init__(self, text):
        self._rules = []
        for number, line in enumerate(text.splitlines(), 1):
            line = line.rstrip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("!") or "**" in line:
                raise ReleaseError(
                    ".gitignore line %d: %r: negation and ** are not supported by dev/release's "
                    "checkout mode; make the archive from a commit instead" % (number, line)
                )
            dir_only = line.endswith("/")
            pattern = line.rstrip("/")
            anchored = "/" in pattern
            self._rules.append((pattern.lstrip("/").split("/"), anchored, dir_only))

    def ignored(self, path, is_dir):
        parts = path.split("/")
        for pattern, anchored, dir_only in self._rules:
            if dir_only and not is_dir:
                continue
            if anchored:
                if len(parts) == len(pattern) and all(fnmatch.fnmatchcase(p, q) for p, q in zip(parts, pattern)):
                    return True
            elif len(pattern) == 1 and fnmatch.fnmatchcase(parts[-1], pattern[0]):
                return True
        return False


def files_from_checkout(root):
    """The files of a checkout on disk: what git would track (per .gitignore), minus export-ignore.

    For tests and machines without git. A release is made from a commit
    (files_from_git): a checkout may hold files that were never committed.
    """
    root = os.path.abspath(root)
    ignore = GitIgnore(_read_text(os.path.join(root, ".gitignore"), default=""))
    export_ignored = export_ignore_paths(_read_text(os.path.join(root, ".gitattributes"), default=""))
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        rel_dir = "" if rel_dir == "." else rel_dir + "/"
        keep = []
        for name in sorted(dirnames):
            path = rel_dir + name
            full = os.path.join(dirpath, name)
            if name == ".git" or ignore.ignored(path, True) or is_export_ignored(path, export_ignored):
                continue
            if os.path.islink(full):
                files.append(_link(root, path, full))
            else:
                keep.append(name)
        dirnames[:] = keep
        for name in sorted(filenames):
            path = rel_dir + name
            full = os.path.join(dirpath, name)
            if name == ".git" or ignore.ignored(path, False) or is_export_ignored(path, export_ignored):
                continue
            if os.path.islink(full):
                files.append(_link(root, path, full))
                continue
            with open(full, "rb") as f:
                data = f.read()
            files.append(File(path, data=data, executable=bool(os.stat(full).st_mode & stat.S_IXUSR)))
    return sorted(files, key=lambda f: f.path.encode())


def _link(root, path, full):
    target = os.readlink(full)
    resolved = os.path.normpath(os.path.join(os.path.dirname(full), target))
    if os.path.isabs(target) or not (resolved + "/").startswith(root + "/"):
        raise ReleaseError(
            "%s is a symlink to %s, outside the checkout: the archive would not be self-contained "
            "(is it a leftover bazel-* link? .gitignore should list it)" % (path, target)
        )
    return File(path, symlink=target)


def _git(repo, *args):
    proc = subprocess.run(["git", "-C", repo, *args], capture_output=True)
    if proc.returncode != 0:
        raise ReleaseError("`git %s` failed in %s:\n%s" % (" ".join(args), repo, proc.stderr.decode(errors="replace")))
    return proc.stdout


def files_from_git(repo, commit):
    """The files of `commit` as `git archive` exports them; returns (files, commit time, full commit id).

    Also checks that git's reading of export-ignore equals export_ignore_paths
    (which files_from_checkout uses), so both ways make the same archive.
    """
    sha = _git(repo, "rev-parse", "--verify", commit + "^{commit}").decode().strip()
    mtime = int(_git(repo, "show", "-s", "--format=%ct", sha).decode().strip())
    exported = []
    with tarfile.open(fileobj=io.BytesIO(_git(repo, "archive", "--format=tar", sha))) as tar:
        for member in tar.getmembers():
            if member.isdir():
                continue
            if member.issym():
                exported.append(File(member.name, symlink=member.linkname))
            elif member.isfile():
                data = tar.extractfile(member).read()
                exported.append(File(member.name, data=data, executable=bool(member.mode & 0o111)))
            else:
                raise ReleaseError("%s in commit %s is neither a file nor a symlink" % (member.name, sha))
    tracked = _git(repo, "ls-tree", "-r", "-z", "--name-only", sha).decode().split("\0")
    try:
        attributes = _git(repo, "show", sha + ":.gitattributes").decode()
    except ReleaseError:
        attributes = ""
    ignored = export_ignore_paths(attributes)
    expected = sorted(p for p in tracked if p and not is_export_ignored(p, ignored))
    got = sorted(f.path for f in exported)
    if got != expected:
        raise ReleaseError(
            "git archive and dev/release disagree on which files .gitattributes leaves out: "
            "only git: %s; only dev/release: %s"
            % (sorted(set(got) - set(expected)), sorted(set(expected) - set(got)))
        )
    return sorted(exported, key=lambda f: f.path.encode()), mtime, sha


# ---------------------------------------------------------------------------
# The archive


def build_archive(files, prefix, mtime):
    """A .tar.gz of `files` under `prefix`/, the same bytes for the same input."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for f in sorted(files, key=lambda f: f.path.encode()):
            info = tarfile.TarInfo(prefix + "/" + f.path)
            info.mtime = mtime
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            if f.symlink is not None:
                info.type = tarfile.SYMTYPE
                info.linkname = f.symlink
                info.mode = 0o777
                tar.addfile(info)
            else:
                info.mode = 0o755 if f.executable else 0o644
                info.size = len(f.data)
                tar.addfile(info, io.BytesIO(f.data))
    out = io.BytesIO()
    # No file name and a zero timestamp in the gzip header; a fixed level.
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=9, mtime=0) as gz:
        gz.write(raw.getvalue())
    return out.getvalue()


def integrity(data):
    """Subresource Integrity string (sha256) of `data`, as source.json's `integrity` wants it."""
    return "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode()


# ---------------------------------------------------------------------------
# The registry entry


def module_version(module_bazel):
    """The version in MODULE.bazel's module() call."""
    call = re.search(r"^module\((.*?)^\)", module_bazel, re.S | re.M)
    if not call:
        raise ReleaseError("MODULE.bazel has no module(...) call")
    version = re.search(r'^\s*version\s*=\s*"([^"]*)"', call.group(1), re.M)
    if not version:
        raise ReleaseError("MODULE.bazel's module(...) has no version")
    return version.group(1)


def dep_version(module_bazel, name):
    """The version of `bazel_dep(name = <name>, ...)`, or None."""
    for call in re.finditer(r"bazel_dep\((.*?)\)", module_bazel, re.S):
        if re.search(r'name\s*=\s*"%s"' % re.escape(name), call.group(1)):
            version = re.search(r'version\s*=\s*"([^"]*)"', call.group(1))
            return version.group(1) if version else None
    return None


def repository(metadata_template):
    """(owner, repo) from metadata.template.json's `github:OWNER/REPO` repository entry."""
    for entry in metadata_template.get("repository", []):
        match = _GITHUB_RE.match(entry)
        if match:
            return match.group(1), match.group(2)
    raise ReleaseError(
        ".bcr/metadata.template.json names no `github:OWNER/REPO` repository; "
        "publish-to-bcr and the source URL template need one"
    )


def substitute(template, owner, repo, version):
    """publish-to-bcr's placeholders; the release tag is v<version>."""
    out = template
    for key, value in (("{OWNER}", owner), ("{REPO}", repo), ("{VERSION}", version), ("{TAG}", "v" + version)):
        out = out.replace(key, value)
    leftover = re.findall(r"\{[A-Z]+\}", out)
    if leftover:
        raise ReleaseError("unknown placeholder(s) %s in .bcr/source.template.json" % sorted(set(leftover)))
    return out


def test_module_path(presubmit_yml):
    """`bcr_test_module.module_path` of a presubmit.yml (the subset of YAML .bcr/presubmit.yml uses), or None."""
    inside = False
    for line in presubmit_yml.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if _indent(line) == 0:
            inside = line.strip() == "bcr_test_module:"
            continue
        match = re.match(r"^\s+module_path:\s*(.*?)\s*(#.*)?$", line)
        if inside and match:
            return match.group(1).strip("\"'")
    return None


def _indent(line):
    return len(line) - len(line.lstrip())


def check_presubmit(presubmit_yml):
    """What the BCR's validation checks of presubmit.yml that can be checked here: tasks exist, each names bazel."""
    lines = [line for line in presubmit_yml.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    problems = []
    tasks = 0
    for i, line in enumerate(lines):
        if line.strip() != "tasks:":
            continue
        level = None
        j = i + 1
        while j < len(lines) and _indent(lines[j]) > _indent(line):
            if level is None:
                level = _indent(lines[j])
            if _indent(lines[j]) == level:
                tasks += 1
                name = lines[j].strip().rstrip(":")
                k = j + 1
                body = []
                while k < len(lines) and _indent(lines[k]) > level:
                    body.append(lines[k].strip())
                    k += 1
                if not any(b.startswith("bazel:") for b in body):
                    problems.append("task %r sets no `bazel:` version (the BCR requires one)" % name)
            j += 1
    if not tasks:
        problems.append("presubmit.yml defines no task")
    return problems


def missing_imports(by_path, module_path):
    """Problems with `import %workspace%/...` lines of <module_path>/.bazelrc whose file the archive lacks.

    The BCR appends its --registry to that .bazelrc and runs Bazel there: a
    missing import (not try-import) fails every presubmit task.
    """
    rc = by_path.get(module_path + "/.bazelrc")
    if rc is None:
        return []
    problems = []
    for line in rc.data.decode().splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "import" and parts[1].startswith("%workspace%/"):
            path = os.path.normpath(os.path.join(module_path, parts[1][len("%workspace%/"):]))
            if path not in by_path:
                problems.append("%s/.bazelrc imports %s, which is not in the archive" % (module_path, path))
    return problems


def version_key(version):
    """Orders versions as the BCR lists them: numeric parts numerically."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"[.+-]", version)]


def merge_metadata(existing, template, version):
    """metadata.json with `version` added: the registry's own copy if it has one, else the template's."""
    metadata = dict(existing if existing is not None else template)
    versions = [v for v in metadata.get("versions", []) if v != version] + [version]
    metadata["versions"] = sorted(versions, key=version_key)
    metadata.setdefault("yanked_versions", {})
    return metadata


def release(version, out_dir, files, mtime, bcr_dir, url=None):
    """Writes the archive and the registry entry of `version` under `out_dir`.

    Args:
      version: the release version, MAJOR.MINOR.PATCH; MODULE.bazel must say the same.
      out_dir: where the archive goes, and the registry root (modules/... below it).
      files: the archive's files (files_from_git or files_from_checkout).
      mtime: every member's modification time (the commit's time).
      bcr_dir: the .bcr directory with the templates.
      url: where the archive will be downloaded from (ending in "/": a directory, the
        archive's file name is appended); default: the template's URL.

    Returns:
      dict with archive (path), integrity, url and entry (the version directory).
    """
    if not _VERSION_RE.match(version):
        raise ReleaseError("version %r: use MAJOR.MINOR.PATCH, e.g. 0.1.0" % version)
    by_path = {f.path: f for f in files}
    if "MODULE.bazel" not in by_path:
        raise ReleaseError("the archive would have no MODULE.bazel at its root")
    module_bazel = by_path["MODULE.bazel"].data.decode()
    declared = module_version(module_bazel)
    if declared != version:
        raise ReleaseError(
            'MODULE.bazel says version = "%s", not "%s": set module(version = "%s") '
            "(and examples/MODULE.bazel's bazel_dep on %s), commit, and release that commit"
            % (declared, version, version, MODULE_NAME)
        )
    metadata_template = json.loads(_read_text(os.path.join(bcr_dir, "metadata.template.json")))
    source_template = _read_text(os.path.join(bcr_dir, "source.template.json"))
    presubmit = _read_text(os.path.join(bcr_dir, "presubmit.yml"))
    problems = check_presubmit(presubmit)
    module_path = test_module_path(presubmit)
    if not module_path:
        problems.append("no bcr_test_module.module_path")
    elif module_path.strip("/") + "/MODULE.bazel" not in by_path:
        problems.append("bcr_test_module.module_path %r is not a module inside the archive "
                        "(no %s/MODULE.bazel; is it export-ignored?)" % (module_path, module_path.strip("/")))
    else:
        test_module = by_path[module_path.strip("/") + "/MODULE.bazel"].data.decode()
        if dep_version(test_module, MODULE_NAME) != version:
            problems.append("%s/MODULE.bazel: bazel_dep(name = \"%s\", version = \"%s\") must name the "
                            "release version" % (module_path, MODULE_NAME, version))
        problems += missing_imports(by_path, module_path.strip("/"))
    for name in ("LICENSE",):
        if name not in by_path:
            problems.append("the archive has no %s" % name)
    if problems:
        raise ReleaseError(".bcr/presubmit.yml / archive: " + "; ".join(problems))

    owner, repo = repository(metadata_template)
    source = json.loads(substitute(source_template, owner, repo, version))
    prefix = source.get("strip_prefix", "")
    if not prefix or "/" in prefix.strip("/"):
        raise ReleaseError(".bcr/source.template.json: strip_prefix must be one directory name, e.g. {REPO}-{VERSION}")
    template_url = source["url"]
    archive_name = template_url.rsplit("/", 1)[-1]
    data = build_archive(files, prefix, mtime)
    source = {
        "integrity": integrity(data),
        "strip_prefix": prefix,
        "url": (url + archive_name if url.endswith("/") else url) if url else template_url,
    }

    archive_path = os.path.join(out_dir, archive_name)
    module_dir = os.path.join(out_dir, "modules", MODULE_NAME)
    entry = os.path.join(module_dir, version)
    contents = {
        archive_path: data,
        os.path.join(entry, "MODULE.bazel"): by_path["MODULE.bazel"].data,
        os.path.join(entry, "source.json"): (json.dumps(source, indent=4, sort_keys=True) + "\n").encode(),
        os.path.join(entry, "presubmit.yml"): presubmit.encode(),
    }
    # Nothing is written unless all of it can be: a release never replaces
    # a published archive or entry (the BCR is add-only).
    for path, content in contents.items():
        if os.path.exists(path):
            with open(path, "rb") as f:
                if f.read() != content:
                    raise ReleaseError(
                        "%s already exists with other content: a registry never changes a published "
                        "version (BCR: add-only); release a new version instead" % path
                    )
    for path, content in contents.items():
        _write(path, content)
    metadata_path = os.path.join(module_dir, "metadata.json")
    existing = json.loads(_read_text(metadata_path)) if os.path.exists(metadata_path) else None
    metadata = merge_metadata(existing, metadata_template, version)
    _write(metadata_path, (json.dumps(metadata, indent=4) + "\n").encode())
    return {"archive": archive_path, "integrity": source["integrity"], "url": source["url"], "entry": entry}


def _read_text(path, default=None):
    if default is not None and not os.path.exists(path):
        return default
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise ReleaseError("cannot read %s: %s" % (path, e))


def _write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
