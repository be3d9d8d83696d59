"""--@rules_cuda_stages//cuda_rules:device_debug: which targets compile device code for debugging (nvcc -G)."""

visibility(["//cuda_rules/...", "//tests/..."])

_FLAG = "--@rules_cuda_stages//cuda_rules:device_debug"

def _parse(pattern):
    """struct(repo, package, name, recursive) of a target pattern, or a string: what is wrong with it."""
    repo = None  # None: the main repository
    rest = pattern
    if rest.startswith("@@"):
        repo, sep, rest = rest[2:].partition("//")
        if not sep:
            return "it has no //"
        repo = struct(canonical = True, name = repo) if repo else None
    elif rest.startswith("@"):
        repo, sep, rest = rest[1:].partition("//")
        if not sep:
            return "it has no //"
        repo = struct(canonical = False, name = repo) if repo else None
    elif rest.startswith("//"):
        rest = rest[2:]
    else:
        return "it does not start with // or @"
    package, colon, name = rest.partition(":")
    if package == "..." or package.endswith("/..."):
        if colon:
            return "a recursive pattern (/...) takes no :name"
        return struct(repo = repo, package = package[:-len("...")].rstrip("/"), name = None, recursive = True)
    if not colon:
        name = package.rpartition("/")[2]
    if not name:
        return "it has an empty target name"
    return struct(repo = repo, package = package, name = None if name in ("all", "*") else name, recursive = False)

def _repo_matches(repo, label):
    workspace = label.workspace_name
    if repo == None:
        return workspace in ("", "_main")
    if repo.canonical:
        return workspace == repo.name

    # An apparent name: a module's repository (name~, name~version, name+).
    return workspace == repo.name or workspace.startswith(repo.name + "~") or workspace.startswith(repo.name + "+")

def _matches(p, label):
    if not _repo_matches(p.repo, label):
        return False
    package = label.package
    if p.recursive:
        return not p.package or package == p.package or package.startswith(p.package + "/")
    if package != p.package:
        return False
    if p.name == None:
        return True

    # cuda_binary / cuda_test compile their sources in _<name>_cuda.
    return label.name == p.name or label.name == "_{}_cuda".format(p.name)

def device_debug_requested(label, patterns):
    """Whether `label` is one of the targets --@rules_cuda_stages//cuda_rules:device_debug names.

    Args:
      label: the target's Label.
      patterns: the flag's values: target patterns (//pkg:name, //pkg:all, //pkg/..., //...,
        @repo//...), each value possibly a comma-separated list.

    Returns:
      bool.
    """
    for value in patterns:
        for pattern in value.split(","):
            pattern = pattern.strip()
            if not pattern:
                continue
            p = _parse(pattern)
            if type(p) == "string":
                fail(("{}: {}={}: '{}' is not a target pattern: {}. Fix: name targets as in `bazel build` " +
                      "(//pkg:target, //pkg:all, //pkg/..., //..., @repo//pkg:target).").format(label, _FLAG, ",".join(patterns), pattern, p))
            if _matches(p, label):
                return True
    return False
