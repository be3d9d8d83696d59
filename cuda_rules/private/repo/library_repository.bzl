"""NVIDIA's CUDA libraries as repositories, and the `@cuda` hub that picks them per toolkit.

One repository per library, CUDA version and platform (@cuda_13_0_x86_64_cublas,
...), made from a list of archives (NVIDIA's PyPI wheels, Debian's packages: url,
sha256, type, strip_prefix or the members of a .deb to extract) or from the
component's archive in NVIDIA's redistrib manifest,
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
load(":platforms.bzl", "PLATFORMS", "constraints", _host_platform = "host_platform")
load(":redist.bzl", "component_archive", "read_manifest")
load(":rules_cuda_names.bzl", "RULES_CUDA_ALIASES", "RULES_CUDA_WINDOWS", "TOOLKIT_COMPAT_TARGETS", "component_group_names")

visibility(["//cuda_rules/...", "//tests/..."])

_GENERATED = "@rules_cuda_stages//cuda_rules/private/repo:generated.bzl"

def host_platform(rctx):
    """The platform of the machine Bazel runs on ("x86_64" or "aarch64")."""
    return _host_platform(rctx)

# Where a .deb's data archive is unpacked from (deleted afterwards), and the
# directory its wanted members are renamed into, so that extraction skips the rest.
_DEB_SCRATCH = "_rules_cuda_stages_debs"
_KEEP = "_rules_cuda_stages_keep"

def _fetch_failed(what, archive, urls, regenerate):
    if regenerate.startswith("python3 "):
        pinned = "the versions table"
        fix = "fix the mirror, or regenerate the table with `{}`".format(regenerate)
    else:
        pinned = regenerate
        fix = "fix the mirror, or the manifest"
    fail(("rules_cuda_stages: {what}: could not fetch {f} (sha256 {sha}) from {url}. " +
          "If the download failed, check the network or --downloader_config / --distdir; if the " +
          "checksum did not match, the file is not the one pinned in {pinned}: {fix}.").format(
        what = what,
        f = archive.get("filename", urls[0]),
        sha = archive["sha256"],
        url = " or ".join(urls),
        pinned = pinned,
        fix = fix,
    ))

def _decompressed(rctx, data):
    """The data archive as a plain .tar when the host's xz(1) can decode it, else as it is.

    Bazel decodes xz in Java, several times as slowly as xz(1): CUDA 12.4's
    toolkit repository (its nvidia-cuda-dev holds 933 MB of xz, 2.6 GB of tar)
    is fetched in 41 s on 2 cores instead of 97 s. Only the decoder differs:
    the tar, and so every file, mode and link the repository gets, is the same.
    """
    if data.basename != "data.tar.xz":
        return data
    xz = rctx.which("xz")
    if not xz:
        return data

    # xz -d writes data.tar next to it and removes data.tar.xz once decoded; on
    # an error it leaves data.tar.xz, and Bazel's decoder reports the error.
    result = rctx.execute([xz, "--decompress", "--threads=0", "--", str(data)], timeout = 1200)
    plain = data.dirname.get_child("data.tar")
    if result.return_code == 0 and plain.exists:
        return plain
    return data

def _extract_deb(rctx, archive, urls, what, regenerate):
    """A Debian package: its data archive's members, each where `files` says (or a directory of it)."""
    scratch = "{}/{}".format(_DEB_SCRATCH, archive["filename"])
    result = rctx.download(url = urls, output = scratch + ".deb", sha256 = archive["sha256"], allow_fail = True)
    if not result.success:
        _fetch_failed(what, archive, urls, regenerate)

    # A .deb is an ar archive: debian-binary, control.tar.*, data.tar.*.
    rctx.extract(scratch + ".deb", output = scratch)
    data = [c for c in rctx.path(scratch).readdir() if c.basename.startswith("data.tar")]
    if len(data) != 1:
        fail("rules_cuda_stages: {}: {} holds no data archive".format(what, archive["filename"]))
    data = [_decompressed(rctx, data[0])]
    files = archive.get("files")
    output = archive.get("output", "")
    if files:
        # Only the listed members are written (the others fall outside the
        # strip prefix), each at its place in the toolkit's layout.
        rctx.extract(
            data[0],
            output = output,
            stripPrefix = _KEEP,
            rename_files = {member: _KEEP + "/" + dest for member, dest in files.items()},
        )
        missing = [d for d in files.values() if not rctx.path(output + "/" + d if output else d).exists]
        if missing:
            fail(("rules_cuda_stages: {what}: {f} lacks {missing}: the table and the package disagree. " +
                  "Fix: regenerate the table with `{regenerate}`.").format(
                what = what,
                f = archive["filename"],
                missing = ", ".join(sorted(missing)[:5]),
                regenerate = regenerate,
            ))
    else:
        rctx.extract(data[0], output = archive.get("output", ""), stripPrefix = archive.get("strip_prefix", ""))
    rctx.delete(_DEB_SCRATCH)

def download_archives(rctx, archives, what, regenerate):
    """Downloads and unpacks archives into the repository root, each checked against its sha256.

    Args:
      rctx: the repository_ctx.
      archives: a list of dicts with url (or urls: mirrors of one file), sha256, type ("zip",
        "tar.xz", ..., or "deb"), filename, and either strip_prefix (with an optional output
        directory) or, for a "deb", files: {member of its data archive: destination}.
      what: what they are, for messages (e.g. "CUDA 13.0 cublas").
      regenerate: the command that regenerates the table (python3 ...), or where the sha256s
        are pinned (a redistrib manifest), for messages.
    """
    for archive in archives:
        urls = archive.get("urls") or [archive["url"]]
        if archive.get("type") == "deb":
            _extract_deb(rctx, archive, urls, what, regenerate)
            continue
        result = rctx.download_and_extract(
            url = urls,
            sha256 = archive["sha256"],
            type = archive.get("type", ""),
            stripPrefix = archive.get("strip_prefix", ""),
            output = archive.get("output", ""),
            allow_fail = True,
        )
        if not result.success:
            _fetch_failed(what, archive, urls, regenerate)

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

def _stub_lines(target, headers, soname, prefix, macro):
    return """
# A link-only stub of {soname}, made from the declarations of {names}: binaries
# record {soname} as needed and bind to the real library (the driver's) at run
# time; the stub is never shipped in runfiles (system_provided).
driver_library_stub(
    name = "{target}_stub",
    headers = {headers},
    soname = "{soname}",
    prefix = "{prefix}",
    api_macro = "{macro}",
)
""".format(
        target = target,
        names = ", ".join(headers),
        headers = repr(["include/" + h for h in headers]),
        soname = soname,
        prefix = prefix,
        macro = macro,
    )

_STUB_PREFIX = {
    "cuda.h": ("cu", "CUDAAPI"),
    "nvml.h": ("nvml", "DECLDIR"),
}

def component_targets(rctx, component, spec, lib_dirs, where, strict, headers_dep = None, own_headers = False, toolkit_headers = None, groups = None):
    """BUILD text for the targets of one component found in this repository.

    Args:
      rctx: the repository_ctx.
      component: the component's key in CUDA_COMPONENTS (e.g. "cublas").
      spec: its CUDA_COMPONENTS entry.
      lib_dirs: where its libraries may be, relative to the repository root.
      where: the repository's origin, for messages (e.g. "CUDA 13.0's nvidia-cublas 13.1.1.3").
      strict: True: a missing file fails the fetch (the table and components.bzl disagree);
        False: the target becomes one that fails analysis naming what is missing (local toolkits).
      headers_dep: a label whose headers every target gets (local toolkits, Debian's libraries:
        their headers are the toolkit's), or None for the component's own headers.
      own_headers: with headers_dep, also the headers of this repository's include/ (CUPTI's
        Debian package has its own).
      toolkit_headers: without headers_dep, a label of the toolkit's headers every target also
        gets: a library's headers include the runtime's (cublas_api.h includes driver_types.h,
        cufft.h cuComplex.h, ...), so `@cuda//:<library>` alone compiles a plain .cpp, as
        rules_cuda's and CMake's CUDA::<library> do.
      groups: also rules_cuda's `<component>_headers`, `_all_files` and `_license`: "repository"
        (the repository holds this component alone), "toolkit" (part of a toolkit's tree: its
        files by name), or None (none: the toolkit's own part, whose groups BUILD.toolkit.tpl has).

    Returns:
      (BUILD text, set of target names defined).
    """
    lines = []
    found_files = []
    for name in sorted(spec["targets"].keys()):
        target = spec["targets"][name]
        shared, missing = find_shared_libraries(rctx, lib_dirs, target.get("shared", []))
        static, missing_static = _find_static(rctx, lib_dirs, target.get("static", []))
        missing = missing + missing_static
        stub = target.get("stub")
        missing_header = stub and not rctx.path("include/" + stub[0]).exists
        if missing or missing_header:
            what = []
            if missing:
                what.append("no {} in {}".format(", ".join([m + "*" if m.endswith(".so") else m for m in missing]), ", ".join(lib_dirs)))
            if missing_header:
                what.append("no include/" + stub[0])
            message = "rules_cuda_stages: @cuda//:{name} ({doc}) is not available in {where}: {what}.".format(
                name = name,
                doc = spec["doc"],
                where = where,
                what = "; ".join(what),
            )
            if strict and target.get("optional") != "yes":
                fail(message + " The versions table and the `" + component + "` entry of cuda_rules/private/repo/components.bzl disagree: " +
                     "fix components.bzl, or regenerate the table with `python3 tools/cuda_wheels/lock.py`.")
            if strict:
                # An optional variant a hermetic toolkit lacks (NVIDIA's wheels ship no static libraries).
                fix = (" Fix: use a library label this toolkit has ({others}), or a toolkit with the file: the " +
                       "local toolkit (--@rules_cuda_stages//cuda_rules:toolkit=local) or an NVIDIA release " +
                       "(cuda.redist, docs/toolkits.md).").format(
                    others = ", ".join(["@cuda//:" + t for t in sorted(spec["targets"].keys()) if spec["targets"][t].get("optional") != "yes"]),
                )
            else:
                fix = (" Fix: install the component into the local toolkit, or use a hermetic toolkit " +
                       "(--@rules_cuda_stages//cuda_rules:toolkit=13.0).")
            lines.append("""
cuda_missing_component(
    name = "{name}",
    message = {message},
)
""".format(name = name, message = repr(message + fix)))
            continue
        found_files.extend(shared + static)
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
            # [the API's header, more headers declaring functions of the same library (used where
            # the toolkit has them), the library's soname]
            prefix, macro = _STUB_PREFIX[stub[0]]
            headers = [stub[0]] + [h for h in stub[1:-1] if rctx.path("include/" + h).exists]
            lines.append(_stub_lines(name, headers, stub[-1], prefix, macro))
            deps.append(_label(name + "_stub"))
        deps.extend(["\"@cuda//:{}\"".format(d) for d in target.get("deps", [])])
        if target.get("runtime") == "yes":
            # Functions of the CUDA runtime: the one the build links (the rules' runtime flag), so a
            # binary that also has CUDA code links one runtime.
            deps.append("\"@rules_cuda_stages//cuda_rules:runtime\"")
        if toolkit_headers and not headers_dep:
            deps.append(toolkit_headers)
        if headers_dep:
            hdrs = "glob([\"include/**\"], allow_empty = True)" if own_headers else "[]"
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
    if groups:
        # A component's headers include those of the components it links (cusolverDn.h: cublas_v2.h).
        deps = [headers_dep or toolkit_headers] + _dependency_headers(component, spec)
        lines.append(_group_lines(component, spec, groups, found_files, ", ".join([d for d in deps if d])))
    return "".join(lines), spec["targets"].keys()

def _dependency_headers(component, spec):
    """The @cuda <component>_headers labels of the other components this one's targets depend on."""
    owner = {}
    for key, other in CUDA_COMPONENTS.items():
        for name in other["targets"].keys():
            owner[name] = key
    out = {}
    for target in spec["targets"].values():
        for dep in target.get("deps", []):
            if dep in owner and owner[dep] != component:
                out["\"@cuda//:{}_headers\"".format(owner[dep])] = True
    return sorted(out.keys())

def _group_lines(component, spec, groups, found_files, headers_deps):
    """rules_cuda's <component>_headers, _all_files and _license (rules_cuda_names.bzl)."""
    if groups == "repository":
        # The repository holds this component alone: its include/ is the component's.
        headers = "glob([\"include/**\"], allow_empty = True)"
        all_files = "glob([\"include/**\", \"lib/**\", \"lib64/**\"], allow_empty = True)"
    else:
        # Part of a tree with others: the component's files by name.
        patterns = ["include/" + prefix + "*" for prefix in spec.get("headers", [])]
        for target in spec["targets"].values():
            patterns.extend(["include/" + h for h in target.get("hdrs", [])])
        headers = "glob({}, allow_empty = True)".format(repr(patterns))
        all_files = "{} + {}".format(headers, repr(sorted(found_files)))
    if groups == "repository":
        license = "glob([\"LICENSE*\", \"License*\", \"*/LICENSE*\", \"*/License*\"], allow_empty = True)"
    else:
        license = "[\":cuda_license\"]"
    return """
# rules_cuda's groups of {component} (rules_cuda_names.bzl).
cc_library(
    name = "{component}_headers",
    hdrs = {headers},
    includes = ["include"],
    deps = [{deps}],
)

filegroup(
    name = "{component}_all_files",
    srcs = {all_files},
)

filegroup(
    name = "{component}_license",
    srcs = {license},
)
""".format(
        component = component,
        headers = headers,
        deps = headers_deps,
        all_files = all_files,
        license = license,
    )

def build_header(origin):
    return """# Generated by rules_cuda_stages: {origin}.
load("@rules_cc//cc:cc_import.bzl", "cc_import")
load("@rules_cc//cc:cc_library.bzl", "cc_library")
load("{generated}", "driver_library_stub", "cuda_missing_component")  # @unused

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
    version = rctx.attr.version
    if rctx.attr.source == "redist":
        manifest, where = read_manifest(rctx, rctx.attr.release, rctx.attr.manifest_urls, rctx.attr.manifest_file, rctx.attr.manifest_sha256)
        archive, error = component_archive(manifest, spec["redist"], PLATFORMS[platform].redist, rctx.attr.mirrors, where)
        if error:
            fail(("rules_cuda_stages: @cuda//:{targets} ({doc}) is not available for CUDA {v} from {where}: {error}. " +
                  "Fix: use another release or toolkit, or the local toolkit.").format(
                targets = ", @cuda//:".join(sorted(spec["targets"].keys())),
                doc = spec["doc"],
                v = version,
                where = where,
                error = error,
            ))
        what = "CUDA {} {} ({} {} from {})".format(version, component, archive["package"], archive["version"], where)
        archives = [archive]
        regenerate = where
    else:
        per_platform = json.decode(rctx.attr.archives)
        what = "CUDA {} {} ({} {})".format(version, component, rctx.attr.package, rctx.attr.package_version)
        if platform not in per_platform:
            fail(("rules_cuda_stages: {what} has no archive for {p} (it has: {have}). " +
                  "Fix: use another CUDA version, or the local toolkit (--@rules_cuda_stages//cuda_rules:toolkit=local).").format(
                what = what,
                p = platform,
                have = ", ".join(sorted(per_platform.keys())) or "none",
            ))
        archives = per_platform[platform]
        regenerate = ("python3 tools/cuda_debs/lock.py " if rctx.attr.source == "debs" else "python3 tools/cuda_wheels/lock.py ") + version
    download_archives(rctx, archives, what, regenerate)
    if rctx.attr.headers:
        text, _ = component_targets(rctx, component, spec, ["lib"], what, strict = True, headers_dep = repr(rctx.attr.headers), own_headers = True, groups = "repository")
    else:
        text, _ = component_targets(rctx, component, spec, ["lib"], what, strict = True, toolkit_headers = "\"@cuda//:cuda_headers\"", groups = "repository")
    rctx.file("BUILD.bazel", build_header(what) + _public_headers_filegroup() + text)

cuda_library_repository = repository_rule(
    implementation = _cuda_library_repository_impl,
    doc = "One NVIDIA library (a component of components.bzl) for one CUDA version and platform, from archives pinned by sha256.",
    attrs = {
        "archives": attr.string(doc = "JSON: {platform: [{url, sha256, type, strip_prefix or files, filename}]} (wheels, debs)."),
        "component": attr.string(mandatory = True, doc = "Key of CUDA_COMPONENTS, e.g. \"cublas\"."),
        "headers": attr.string(doc = "A label whose headers the targets get besides their own (Debian: the toolkit's)."),
        "manifest_file": attr.label(allow_single_file = True, doc = "redist: the manifest as a file of a repository."),
        "manifest_sha256": attr.string(doc = "redist: the manifest's sha256."),
        "manifest_urls": attr.string_list(doc = "redist: where the manifest is."),
        "mirrors": attr.string_list(doc = "redist: base URLs, each holding the manifest's relative paths."),
        "package": attr.string(doc = "Where it comes from (e.g. the PyPI package), for messages."),
        "package_version": attr.string(doc = "Its version, for messages."),
        "platform": attr.string(doc = "x86_64 or aarch64; default: the host's."),
        "release": attr.string(doc = "redist: NVIDIA's release, e.g. \"12.6.3\"."),
        "source": attr.string(default = "wheels", values = ["wheels", "debs", "redist"], doc = "Where the toolkit comes from."),
        "version": attr.string(mandatory = True, doc = "The CUDA version it belongs to, e.g. \"13.0\"."),
    },
)

def hub_targets():
    """Every target name of @cuda that each toolkit's repositories define (the hub selects among them).

    Returns:
      The toolkit's and each component's target names, rules_cuda's per-component groups
      included, sorted. Names the hub defines itself are in hub_aliases() and RULES_CUDA_WINDOWS.
    """
    names = {n: True for n in TOOLKIT_TARGETS.keys()}
    names.update({n: True for n in TOOLKIT_COMPAT_TARGETS.keys()})
    for component, spec in CUDA_COMPONENTS.items():
        for name in spec["targets"].keys():
            names[name] = True
        for name in component_group_names(component):
            names[name] = True
    return sorted(names.keys())

def hub_aliases():
    """@cuda's aliases: rules_cuda's other names of its targets.

    Returns:
      {name: target of hub_targets()}: RULES_CUDA_ALIASES and the components' `aliases`.
    """
    out = dict(RULES_CUDA_ALIASES)
    for spec in CUDA_COMPONENTS.values():
        for name, target in spec["targets"].items():
            for alias in target.get("aliases", []):
                out[alias] = name
    return out

def all_hub_names():
    """Every target name of @cuda (and so of @local_cuda): hub_targets(), hub_aliases(), RULES_CUDA_WINDOWS.

    Returns:
      The names, sorted.
    """
    return sorted(hub_targets() + hub_aliases().keys() + RULES_CUDA_WINDOWS)

_SOURCES = {
    "debs": "Debian's packages",
    "local": "the local toolkit",
    "redist": "NVIDIA's redistrib manifest",
    "wheels": "NVIDIA's PyPI wheels",
}

def _missing_message(name, component, toolkit, platform, source):
    doc = CUDA_COMPONENTS[component]["doc"]
    if source == "wheels":
        why = "the versions table has no {} for CUDA {} on {}".format(component, toolkit, platform)
        fix = "add it with `python3 tools/cuda_wheels/lock.py {}`, ".format(toolkit)
    elif source == "debs":
        why = "Debian does not package {} for CUDA {} on {} (cuda_rules/private/repo/cuda_debs.bzl)".format(component, toolkit, platform)
        fix = ""
    else:
        why = "it is not part of NVIDIA's CUDA release (no redistrib manifest lists it)"
        fix = ""
    return ("rules_cuda_stages: @cuda//:{name} ({doc}) is not available for CUDA {toolkit} " +
            "(--@rules_cuda_stages//cuda_rules:toolkit={toolkit}, from {source}): {why}. Fix: pick a toolkit that has it " +
            "(docs/toolkits.md lists them), {fix}or use --@rules_cuda_stages//cuda_rules:toolkit=local.").format(
        name = name,
        doc = doc,
        toolkit = toolkit,
        source = _SOURCES.get(source, source),
        why = why,
        fix = fix,
    )

def hub_branches(toolkits, libraries, sources = {}):
    """For each @cuda target, the label each toolkit's and platform's branch of its select() points at.

    Args:
      toolkits: {toolkit name ("13.0", "local"): {platform: toolkit repository name}}.
      libraries: {toolkit name: {platform: {component: repository name}}} for the hermetic toolkits.
      sources: {toolkit name: "wheels", "debs", "redist" or "local"}, for messages.

    Returns:
      {target: {toolkit: {platform: label or struct(missing = message)}}}.
    """
    owner = {}
    for component, spec in CUDA_COMPONENTS.items():
        for name in spec["targets"].keys() + component_group_names(component):
            owner[name] = component
    out = {}
    for name in hub_targets():
        branches = {}
        for toolkit, per_platform in toolkits.items():
            branches[toolkit] = {}
            for platform, repo in per_platform.items():
                component = owner.get(name)
                if component == None or CUDA_COMPONENTS[component]["toolkit"] == "yes" or toolkit == "local":
                    branch = "@{}//:{}".format(repo, name)
                elif component in libraries.get(toolkit, {}).get(platform, {}):
                    branch = "@{}//:{}".format(libraries[toolkit][platform][component], name)
                else:
                    branch = struct(missing = _missing_message(name, component, toolkit, platform, sources.get(toolkit, "wheels")))
                branches[toolkit][platform] = branch
        out[name] = branches
    return out

def _hub_impl(rctx):
    toolkits = json.decode(rctx.attr.toolkits)
    libraries = json.decode(rctx.attr.libraries)
    branches = hub_branches(toolkits, libraries, json.decode(rctx.attr.sources))
    lines = [
        "# Generated by rules_cuda_stages: @cuda//:<component> for the toolkit a build selects",
        "# (--@rules_cuda_stages//cuda_rules:toolkit) and its target platform. Each alias selects",
        "# that toolkit's target for that platform; only repositories of selected branches are fetched.",
        "load(\"@rules_cc//cc:cc_library.bzl\", \"cc_library\")",
        "load(\"{}\", \"cuda_bool_setting\", \"cuda_missing_component\", \"cuda_no_toolkit_for_platform\")  # @unused".format(_GENERATED),
        "",
        "package(default_visibility = [\"//visibility:public\"])",
        "",
        "exports_files([\"defs.bzl\"])",
        "",
    ]
    for toolkit in sorted(toolkits.keys()):
        for platform in sorted(toolkits[toolkit].keys()):
            lines.append("""config_setting(
    name = "{toolkit}_{platform}",
    constraint_values = {constraints},
    flag_values = {{"@rules_cuda_stages//cuda_rules:toolkit": "{toolkit}"}},
    visibility = ["//visibility:private"],
)
""".format(toolkit = toolkit, platform = platform, constraints = repr(constraints(platform))))
    for name, per_toolkit in branches.items():
        select = []
        for toolkit in sorted(per_toolkit.keys()):
            for platform in sorted(per_toolkit[toolkit].keys()):
                branch = per_toolkit[toolkit][platform]
                if name == "valid_toolchain_found" and toolkit != "local":
                    # A hermetic toolkit is there by construction: True without
                    # fetching it (a build with CUDA off that selects on this
                    # downloads no toolkit).
                    branch = ":_toolkit_is_there"
                if type(branch) == "string":
                    label = branch
                else:
                    missing = "_missing_{}_{}_{}".format(name, toolkit.replace(".", "_"), platform)
                    lines.append("cuda_missing_component(\n    name = \"{}\",\n    message = {},\n    visibility = [\"//visibility:private\"],\n)\n".format(missing, repr(branch.missing)))
                    label = ":" + missing
                select.append("        \":{}_{}\": \"{}\",".format(toolkit, platform, label))
        if name == "valid_toolchain_found":
            # A setting (config_setting flag_values read it through the alias): for a
            # platform no toolkit of the build has, False rather than an error.
            lines.append("cuda_bool_setting(\n    name = \"_no_toolkit_{}\",\n    build_setting_default = False,\n    visibility = [\"//visibility:private\"],\n)\n".format(name))
            lines.append("cuda_bool_setting(\n    name = \"_toolkit_is_there\",\n    build_setting_default = True,\n    visibility = [\"//visibility:private\"],\n)\n")
        else:
            lines.append("cuda_no_toolkit_for_platform(\n    name = \"_no_toolkit_{}\",\n    target = \"@cuda//:{}\",\n    visibility = [\"//visibility:private\"],\n)\n".format(name, name))
        select.append("        \"//conditions:default\": \":_no_toolkit_{}\",".format(name))
        lines.append("alias(\n    name = \"{}\",\n    actual = select({{\n{}\n    }}),\n)\n".format(name, "\n".join(select)))
    lines.append("# rules_cuda's other names of the targets above (rules_cuda_names.bzl).\n")
    for name, target in sorted(hub_aliases().items()):
        lines.append("alias(\n    name = \"{}\",\n    actual = \":{}\",\n)\n".format(name, target))
    lines.append("# rules_cuda's Windows import libraries: incompatible on Linux, as there.\n")
    for name in RULES_CUDA_WINDOWS:
        lines.append("cc_library(\n    name = \"{}\",\n    target_compatible_with = [\"@platforms//os:windows\"],\n)\n".format(name))
    rctx.file("BUILD.bazel", "\n".join(lines))
    rctx.file("defs.bzl", _hub_defs(toolkits))

cuda_hub_repository = repository_rule(
    implementation = _hub_impl,
    doc = "@cuda: rules_cuda's component labels for the toolkit and target platform of the build.",
    attrs = {
        "libraries": attr.string(mandatory = True, doc = "JSON: {toolkit: {platform: {component: repository}}} of the hermetic toolkits."),
        "sources": attr.string(default = "{}", doc = "JSON: {toolkit: wheels, debs, redist or local}, for messages."),
        "toolkits": attr.string(mandatory = True, doc = "JSON: {toolkit name: {platform: toolkit repository}}."),
    },
)

def _version_tuple(version):
    parts = version.split(".")
    return (int(parts[0]), int(parts[1])) if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit() else None

def _hub_defs(toolkits):
    """@cuda//:defs.bzl: rules_cuda's generated helpers, as select()s over the build's toolkit."""
    versions = {t: _version_tuple(t) for t in toolkits.keys() if t != "local"}
    return '''"""rules_cuda's @cuda//:defs.bzl helpers, generated by rules_cuda_stages.

rules_cuda wrote the one toolkit's version into this file; here the toolkit is
chosen per build (--@rules_cuda_stages//cuda_rules:toolkit), so each helper
returns a select() over the toolkits: use them where a configurable value
goes (deps, srcs, copts, defines, ...).
"""

load("@cuda_local//:version.bzl", _LOCAL_VERSION = "CUDA_VERSION")

# The build's toolkits and their (major, minor) versions; "local": the installed one's.
_VERSIONS = %s

def _version(toolkit):
    if toolkit != "local":
        return _VERSIONS[toolkit]
    if not _LOCAL_VERSION:
        return None
    major, minor = _LOCAL_VERSION.split(".")[:2]
    return (int(major), int(minor))

def _toolkit_setting(toolkit):
    return Label("@rules_cuda_stages//cuda_rules:toolkit_" + toolkit)

def if_cuda_toolkit_version_ge(version, if_true, if_false = []):
    """`if_true` when the build's toolkit is at least `version` (a (major, minor) tuple), else `if_false`."""
    branches = {}
    for toolkit in sorted(_VERSIONS.keys()) + ["local"]:
        have = _version(toolkit)
        branches[_toolkit_setting(toolkit)] = if_true if have != None and have >= tuple(version) else if_false
    return select(branches)

def if_local_cuda_toolkit(if_true, if_false = []):
    """`if_true` when the build uses the installed toolkit (toolkit=local), else `if_false`."""
    return select({
        _toolkit_setting("local"): if_true,
        "//conditions:default": if_false,
    })

def if_deliverable_cuda_toolkit(if_true, if_false = []):
    """`if_true` when the build uses a toolkit assembled from NVIDIA's packages (here: a hermetic one)."""
    return if_local_cuda_toolkit(if_false, if_true)

def if_cuda_clang(if_true, if_false = []):
    """`if_true` when clang compiles CUDA (--@rules_cuda_stages//cuda_rules:compiler=clang)."""
    return select({
        Label("@rules_cuda_stages//cuda_rules:compiler_is_clang"): if_true,
        "//conditions:default": if_false,
    })

def additional_header_deps(component_name):  # buildifier: disable=unused-variable
    """rules_cuda's extra header deps of a component: none here (every @cuda label carries the headers it needs)."""
    return []

def any_or_first(*paths):
    """The first of `paths` that exists in this package, else the first."""
    exists = native.glob(list(paths), allow_empty = True)
    return exists[0] if exists else paths[0]
''' % repr(versions)

def _hub_alias_impl(rctx):
    lines = [
        "# Generated by rules_cuda_stages: @{hub} under another name (a name rules_cuda's tags gave it).".format(hub = rctx.attr.hub),
        "",
        "package(default_visibility = [\"//visibility:public\"])",
        "",
    ]
    for name in all_hub_names():
        lines.append("alias(\n    name = \"{name}\",\n    actual = \"@{hub}//:{name}\",\n)\n".format(name = name, hub = rctx.attr.hub))
    lines.append("exports_files([\"defs.bzl\"])\n")
    rctx.file("BUILD.bazel", "\n".join(lines))
    rctx.file("defs.bzl", """\"\"\"@{hub}//:defs.bzl under another name.\"\"\"

load("@{hub}//:defs.bzl", _additional_header_deps = "additional_header_deps", _any_or_first = "any_or_first", _if_cuda_clang = "if_cuda_clang", _if_cuda_toolkit_version_ge = "if_cuda_toolkit_version_ge", _if_deliverable_cuda_toolkit = "if_deliverable_cuda_toolkit", _if_local_cuda_toolkit = "if_local_cuda_toolkit")

additional_header_deps = _additional_header_deps
any_or_first = _any_or_first
if_cuda_clang = _if_cuda_clang
if_cuda_toolkit_version_ge = _if_cuda_toolkit_version_ge
if_deliverable_cuda_toolkit = _if_deliverable_cuda_toolkit
if_local_cuda_toolkit = _if_local_cuda_toolkit
""".format(hub = rctx.attr.hub))

cuda_hub_alias_repository = repository_rule(
    implementation = _hub_alias_impl,
    doc = "The @cuda hub's labels under another repository name: rules_cuda's @local_cuda, or a rules_cuda tag's `name`.",
    attrs = {"hub": attr.string(mandatory = True, doc = "The hub repository's name (of the same extension).")},
)
