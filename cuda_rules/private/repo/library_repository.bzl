"""NVIDIA's CUDA libraries as repositories, and the `@cuda` hub that picks them per toolkit.

One repository per library and CUDA version (@cuda_13_0_cublas, ...), made from a
list of archives (today NVIDIA's PyPI wheels; NVIDIA's redistributable archives
or Debian packages fit the same attributes: url, sha256, strip_prefix, type),
unpacked into one tree with include/ and lib/. Its BUILD file is generated from
components.bzl: a cc_library per target with the headers, the shared libraries
(linked, and shipped in runfiles so binaries find them without
LD_LIBRARY_PATH) and static libraries.

`@cuda` holds one alias per target name (rules_cuda's names), whose `select()`
on --@rules_cuda_stages//cuda_rules:toolkit points at the selected toolkit's
repository; a build analyzes only the selected branch, so only the repositories
it uses are fetched.
"""

load(":components.bzl", "CUDA_COMPONENTS", "TOOLKIT_TARGETS")

visibility(["//cuda_rules/...", "//tests/..."])

_GENERATED = "@rules_cuda_stages//cuda_rules/private/repo:generated.bzl"

def host_platform(rctx):
    """The wheel platform of the machine Bazel runs on ("x86_64" or "aarch64")."""
    arch = rctx.os.arch
    return {"amd64": "x86_64", "x86_64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}.get(arch, arch)

def download_archives(rctx, archives, what, regenerate):
    """Downloads and unpacks archives into the repository root, each checked against its sha256.

    Args:
      rctx: the repository_ctx.
      archives: a list of dicts with url, sha256, strip_prefix, type and filename.
      what: what they are, for messages (e.g. "CUDA 13.0 cublas").
      regenerate: the command that regenerates the table, for messages.
    """
    for archive in archives:
        result = rctx.download_and_extract(
            url = archive["url"],
            sha256 = archive["sha256"],
            type = archive.get("type", ""),
            stripPrefix = archive.get("strip_prefix", ""),
            allow_fail = True,
        )
        if not result.success:
            fail(("rules_cuda_stages: {what}: could not fetch {f} (sha256 {sha}) from {url}. " +
                  "If the download failed, check the network or --downloader_config / --distdir; if the " +
                  "checksum did not match, the file is not the one pinned in the versions table: " +
                  "fix the mirror, or regenerate the table with `{regenerate}`.").format(
                what = what,
                f = archive.get("filename", archive["url"]),
                sha = archive["sha256"],
                url = archive["url"],
                regenerate = regenerate,
            ))

def _split_so(name):
    """("libcublas.so", "13") for "libcublas.so.13"; (None, None) for names that are no shared library."""
    i = name.find(".so")
    if i < 0:
        return None, None
    rest = name[i + 3:]
    if rest and (not rest.startswith(".") or not rest[1:].replace(".", "").isdigit()):
        return None, None
    return name[:i + 3], rest[1:]

def _matches(pattern, stem):
    if "*" not in pattern:
        return pattern == stem
    pre, post = pattern.split("*", 1)
    return stem.startswith(pre) and stem.endswith(post) and len(stem) >= len(pre) + len(post)

def find_shared_libraries(rctx, lib_dirs, patterns):
    """The shared library files for basename patterns, searching lib_dirs (repository-relative).

    For each library it takes the shortest versioned name (libcublas.so.13, the
    name the dynamic loader looks for), else the bare .so.

    Args:
      rctx: the repository_ctx.
      lib_dirs: directories relative to the repository root, in search order.
      patterns: basenames such as "libcublas.so" or "libcudnn_*.so".

    Returns:
      (list of repository-relative paths, list of patterns that matched nothing).
    """
    found = []
    missing = []
    for pattern in patterns:
        best = {}
        for d in lib_dirs:
            path = rctx.path(d)
            if not path.exists:
                continue
            for child in path.readdir():
                stem, _ = _split_so(child.basename)
                if stem == None or not _matches(pattern, stem) or stem in best:
                    continue
                candidates = [c.basename for c in path.readdir() if _split_so(c.basename)[0] == stem]
                versioned = sorted([c for c in candidates if c != stem], key = lambda c: (len(c), c))
                best[stem] = d + "/" + (versioned[0] if versioned else stem)
        if best:
            found.extend([best[k] for k in sorted(best.keys())])
        else:
            missing.append(pattern)
    return found, missing

def _find_static(rctx, lib_dirs, names):
    found = []
    missing = []
    for name in names:
        hit = [d + "/" + name for d in lib_dirs if rctx.path(d + "/" + name).exists]
        if hit:
            found.append(hit[0])
        else:
            missing.append(name)
    return found, missing

def _label(name):
    return "\":{}\"".format(name)

def _stub_lines(target, header, soname, prefix, macro):
    return """
# A link-only stub of {soname}, made from {header}'s declarations: binaries
# record {soname} as needed and bind to the real library (the driver's) at run
# time; the stub is never shipped in runfiles (system_provided).
cuda_link_stub(
    name = "{target}_stub",
    header = "include/{header}",
    soname = "{soname}",
    prefix = "{prefix}",
    api_macro = "{macro}",
)
""".format(target = target, header = header, soname = soname, prefix = prefix, macro = macro)

_STUB_PREFIX = {
    "cuda.h": ("cu", "CUDAAPI"),
    "nvml.h": ("nvml", "DECLDIR"),
}

def component_targets(rctx, component, spec, lib_dirs, where, strict, headers_dep = None):
    """BUILD text for the targets of one component found in this repository.

    Args:
      rctx: the repository_ctx.
      component: the component's key in CUDA_COMPONENTS (e.g. "cublas").
      spec: its CUDA_COMPONENTS entry.
      lib_dirs: where its libraries may be, relative to the repository root.
      where: the repository's origin, for messages (e.g. "CUDA 13.0's nvidia-cublas 13.1.1.3").
      strict: True: a missing file fails the fetch (the table and components.bzl disagree);
        False: the target becomes one that fails analysis naming what is missing (local toolkits).
      headers_dep: a label whose headers every target gets (local toolkits), or None for the
        component's own headers.

    Returns:
      (BUILD text, set of target names defined).
    """
    lines = []
    for name in sorted(spec["targets"].keys()):
        target = spec["targets"][name]
        shared, missing = find_shared_libraries(rctx, lib_dirs, target.get("shared", []))
        static, missing_static = _find_static(rctx, lib_dirs, target.get("static", []))
        missing = missing + missing_static
        stub = target.get("stub")
        if stub and not rctx.path("include/" + stub[0]).exists:
            missing.append("include/" + stub[0])
        if missing:
            message = ("rules_cuda_stages: @cuda//:{name} ({doc}) is not available in {where}: " +
                       "no {missing} in {dirs}.").format(
                name = name,
                doc = spec["doc"],
                where = where,
                missing = ", ".join([m + "*" if m.endswith(".so") else m for m in missing]),
                dirs = ", ".join(lib_dirs),
            )
            if strict:
                fail(message + " The versions table and the `" + component + "` entry of cuda_rules/private/repo/components.bzl disagree: " +
                     "fix components.bzl, or regenerate the table with `python3 tools/cuda_wheels/lock.py`.")
            lines.append("""
cuda_missing_component(
    name = "{name}",
    message = {message},
)
""".format(name = name, message = repr(message + " Fix: install the component into the local toolkit, " +
                                       "or use a hermetic toolkit (--@rules_cuda_stages//cuda_rules:toolkit=" +
                                       "13.0).")))
            continue
        deps = []
        if shared:
            # One target for all of them, so they share one directory in the
            # binary's runfiles (_solib_<cpu>/...): libraries that load their
            # siblings at run time (cuDNN, NVRTC's builtins) find them there.
            lines.append("""
cc_library(
    name = "_{name}_shared",
    srcs = {libs},
)
""".format(name = name, libs = repr(shared)))
            deps.append(_label("_{}_shared".format(name)))
        for i, lib in enumerate(static):
            lines.append("""
cc_import(
    name = "_{name}_static_{i}",
    static_library = "{lib}",
)
""".format(name = name, i = i, lib = lib))
            deps.append(_label("_{}_static_{}".format(name, i)))
        if stub:
            prefix, macro = _STUB_PREFIX[stub[0]]
            lines.append(_stub_lines(name, stub[0], stub[1], prefix, macro))
            deps.append(_label(name + "_stub"))
        deps.extend(["\"@cuda//:{}\"".format(d) for d in target.get("deps", [])])
        if headers_dep:
            hdrs = "[]"
            deps.append(headers_dep)
        elif "hdrs" in target:
            hdrs = "glob({}, allow_empty = True)".format(repr(["include/" + h for h in target["hdrs"]]))
        else:
            hdrs = "glob([\"include/**\"], allow_empty = True)"
        lines.append("""
# {doc}
cc_library(
    name = "{name}",
    hdrs = {hdrs},
    includes = ["include"],
    deps = [{deps}],
)
""".format(name = name, doc = target.get("doc", spec["doc"]), hdrs = hdrs, deps = ", ".join(deps)))
    return "".join(lines), spec["targets"].keys()

def build_header(origin):
    return """# Generated by rules_cuda_stages: {origin}.
load("@rules_cc//cc:cc_import.bzl", "cc_import")
load("@rules_cc//cc:cc_library.bzl", "cc_library")
load("{generated}", "cuda_link_stub", "cuda_missing_component")  # @unused

package(default_visibility = ["//visibility:public"])
""".format(origin = origin, generated = _GENERATED)

def _public_headers_filegroup():
    return """
# Every header of this repository (tests list them).
filegroup(
    name = "header_files",
    srcs = glob(["include/**"], allow_empty = True),
)
"""

def _cuda_library_repository_impl(rctx):
    component = rctx.attr.component
    spec = CUDA_COMPONENTS[component]
    platform = rctx.attr.platform or host_platform(rctx)
    archives = json.decode(rctx.attr.archives)
    what = "CUDA {} {} ({} {})".format(rctx.attr.version, component, rctx.attr.package, rctx.attr.package_version)
    if platform not in archives:
        fail(("rules_cuda_stages: {what} has no archive for {p} (it has: {have}). " +
              "Fix: use another CUDA version, or the local toolkit (--@rules_cuda_stages//cuda_rules:toolkit=local).").format(
            what = what,
            p = platform,
            have = ", ".join(sorted(archives.keys())) or "none",
        ))
    download_archives(rctx, archives[platform], what, "python3 tools/cuda_wheels/lock.py " + rctx.attr.version)
    text, _ = component_targets(rctx, component, spec, ["lib"], what, strict = True)
    rctx.file("BUILD.bazel", build_header(what) + _public_headers_filegroup() + text)

cuda_library_repository = repository_rule(
    implementation = _cuda_library_repository_impl,
    doc = "One NVIDIA library (a component of components.bzl) for one CUDA version, from archives pinned by sha256.",
    attrs = {
        "archives": attr.string(mandatory = True, doc = "JSON: {platform: [{url, sha256, strip_prefix, type, filename}]}."),
        "component": attr.string(mandatory = True, doc = "Key of CUDA_COMPONENTS, e.g. \"cublas\"."),
        "package": attr.string(doc = "Where it comes from (e.g. the PyPI package), for messages."),
        "package_version": attr.string(doc = "Its version, for messages."),
        "platform": attr.string(doc = "x86_64 or aarch64; default: the host's."),
        "version": attr.string(mandatory = True, doc = "The CUDA version it belongs to, e.g. \"13.0\"."),
    },
)

def hub_targets():
    """Every target name of @cuda.

    Returns:
      The toolkit's and each component's target names, sorted.
    """
    names = {n: True for n in TOOLKIT_TARGETS.keys()}
    for spec in CUDA_COMPONENTS.values():
        for name in spec["targets"].keys():
            names[name] = True
    return sorted(names.keys())

def hub_branches(toolkits, libraries, platform):
    """For each @cuda target, the label each toolkit's branch of its select() points at.

    Args:
      toolkits: {toolkit name ("13.0", "local"): toolkit repository name}.
      libraries: {toolkit name: {component: repository name}} for the hermetic toolkits.
      platform: the host's platform, for messages.

    Returns:
      {target: {toolkit: label or struct(missing = message)}}.
    """
    owner = {}
    for component, spec in CUDA_COMPONENTS.items():
        for name in spec["targets"].keys():
            owner[name] = component
    out = {}
    for name in hub_targets():
        branches = {}
        for toolkit, repo in toolkits.items():
            component = owner.get(name)
            if component == None or CUDA_COMPONENTS[component]["toolkit"] == "yes" or toolkit == "local":
                branches[toolkit] = "@{}//:{}".format(repo, name)
            elif component in libraries.get(toolkit, {}):
                branches[toolkit] = "@{}//:{}".format(libraries[toolkit][component], name)
            else:
                branches[toolkit] = struct(missing = (
                    "rules_cuda_stages: @cuda//:{name} ({doc}) is not available for CUDA {toolkit} " +
                    "(--@rules_cuda_stages//cuda_rules:toolkit={toolkit}): the versions table has no {component} " +
                    "for CUDA {toolkit} on {platform}. Fix: pick a toolkit that has it " +
                    "(docs/toolkits.md lists them), add it with `python3 tools/cuda_wheels/lock.py {toolkit}`, " +
                    "or use --@rules_cuda_stages//cuda_rules:toolkit=local."
                ).format(name = name, doc = CUDA_COMPONENTS[component]["doc"], toolkit = toolkit, component = component, platform = platform))
        out[name] = branches
    return out

def _hub_impl(rctx):
    toolkits = json.decode(rctx.attr.toolkits)
    libraries = json.decode(rctx.attr.libraries)
    branches = hub_branches(toolkits, libraries, host_platform(rctx))
    lines = [
        "# Generated by rules_cuda_stages: @cuda//:<component> for the toolkit a build selects",
        "# (--@rules_cuda_stages//cuda_rules:toolkit). Each alias selects the selected toolkit's",
        "# target; only repositories of selected branches are fetched.",
        "load(\"{}\", \"cuda_missing_component\")  # @unused".format(_GENERATED),
        "",
        "package(default_visibility = [\"//visibility:public\"])",
        "",
    ]
    for name, per_toolkit in branches.items():
        select = []
        for toolkit in sorted(per_toolkit.keys()):
            branch = per_toolkit[toolkit]
            if type(branch) == "string":
                label = branch
            else:
                missing = "_missing_{}_{}".format(name, toolkit.replace(".", "_"))
                lines.append("cuda_missing_component(\n    name = \"{}\",\n    message = {},\n    visibility = [\"//visibility:private\"],\n)\n".format(missing, repr(branch.missing)))
                label = ":" + missing
            select.append("        \"@rules_cuda_stages//cuda_rules:toolkit_{}\": \"{}\",".format(toolkit, label))
        lines.append("alias(\n    name = \"{}\",\n    actual = select({{\n{}\n    }}),\n)\n".format(name, "\n".join(select)))
    rctx.file("BUILD.bazel", "\n".join(lines))

cuda_hub_repository = repository_rule(
    implementation = _hub_impl,
    doc = "@cuda: rules_cuda's component labels for the toolkit the build selects.",
    attrs = {
        "libraries": attr.string(mandatory = True, doc = "JSON: {toolkit: {component: repository}} of the hermetic toolkits."),
        "toolkits": attr.string(mandatory = True, doc = "JSON: {toolkit name: toolkit repository}."),
    },
)
