"""The `cuda` module extension: creates the CUDA toolkit repositories, NVIDIA's libraries, the `@cuda` hub and the arch settings' repositories."""

load("//cuda_rules/private:archs.bzl", "parse_archs")
load("//cuda_rules/private/repo:arch_repositories.bzl", "native_archs_repository", "shipped_archs_repository")
load("//cuda_rules/private/repo:components.bzl", "CUDA_COMPONENTS")
load("//cuda_rules/private/repo:cuda_debs.bzl", "CUDA_DEBS")
load("//cuda_rules/private/repo:cuda_libraries.bzl", "CUDA_LIBRARY_VERSIONS")
load("//cuda_rules/private/repo:host_clang.bzl", "host_clang_repository")
load("//cuda_rules/private/repo:host_compiler_id.bzl", "host_compiler_id_repository")
load("//cuda_rules/private/repo:host_gcc.bzl", "host_gcc_repository")
load("//cuda_rules/private/repo:host_gcc_debs.bzl", "HOST_CLANG", "HOST_GCC")
load("//cuda_rules/private/repo:library_repository.bzl", "cuda_hub_alias_repository", "cuda_hub_repository", "cuda_library_repository")
load("//cuda_rules/private/repo:redist.bzl", "NVIDIA_REDIST", "manifest_urls", "parse_version")
load(
    "//cuda_rules/private/repo:toolkit_repository.bzl",
    "cuda_toolchains_hub",
    "hermetic_toolkit_repository",
    "known_versions",
    "local_toolkit_repository",
    "toolkit_platforms",
    "unknown_version_error",
)

visibility(["//cuda_rules/...", "//tests/..."])

DEFAULT_TOOLKIT = "13.0"

_HOST_COMPILER_CHECK_DOC = ("False: do not fail analysis when the C++ toolchain's gcc is newer than the toolkit accepts " +
                            "(for builds that pass nvcc's -allow-unsupported-compiler). Only the root module's False counts.")

_RULES_CUDA_NAME_DOC = ("rules_cuda's form: the name of the repository the module imports with use_repo(cuda, \"<name>\"). " +
                        "\"cuda\" is the @cuda hub itself; any other name (rules_cuda 0.2's \"local_cuda\" included) " +
                        "is created as the same hub under that name.")
_RULES_CUDA_PATH_DOC = ("rules_cuda's form: the installed toolkit's root (the directory holding bin/nvcc); empty: " +
                        "CUDA_PATH, CUDA_HOME, nvcc on PATH, /usr/local/cuda.")

_toolkit = tag_class(
    doc = """A hermetic CUDA toolkit, fetched with Bazel's downloader and pinned by sha256: from NVIDIA's
PyPI wheels (13.x: cuda_rules/private/repo/cuda_versions.bzl) or Debian's packages (12.4:
cuda_debs.bzl), or, for a version a root module's cuda.redist(...) tag declares, from NVIDIA's
redistributable archives. Creates one repository per platform, @cuda_<major>_<minor>_<platform>
(x86_64, aarch64), each fetched only when a build selects it. Selected with
--@rules_cuda_stages//cuda_rules:toolkit=<version> (default """ + DEFAULT_TOOLKIT + """); Bazel's toolchain
resolution picks the platform.

bazel-contrib/rules_cuda's form, `cuda.toolkit(name = "cuda", toolkit_path = "")`, is accepted too
and means what it meant there: the installed toolkit. In the root module it makes `local` the
default of --@rules_cuda_stages//cuda_rules:toolkit (as cuda.local_toolchain does); its
`version`, `components_mapping` and `nvcc_version` (rules_cuda's toolkits from NVIDIA's
redistributable components) fail, naming cuda.redist, their counterpart here.""",
    attrs = {
        "components_mapping": attr.string_dict(doc = "rules_cuda's form only; fails naming cuda.redist (docs/migrating.md)."),
        "host_compiler_check": attr.bool(default = True, doc = _HOST_COMPILER_CHECK_DOC),
        "name": attr.string(doc = _RULES_CUDA_NAME_DOC),
        "nvcc_version": attr.string(doc = "rules_cuda's form only; fails naming cuda.redist (docs/migrating.md)."),
        "toolkit_path": attr.string(doc = _RULES_CUDA_PATH_DOC),
        "version": attr.string(doc = "CUDA version, e.g. \"13.0\" or \"12.4\" (mandatory unless rules_cuda's `name` is given)."),
    },
)

_local_toolchain = tag_class(
    doc = """bazel-contrib/rules_cuda 0.2's tag for the installed toolkit (its repository was @local_cuda):
`cuda.local_toolchain(name = "local_cuda", toolkit_path = "")`. In the root module it makes the
installed toolkit the default (--@rules_cuda_stages//cuda_rules:toolkit defaults to `local`; a
value on the command line or in .bazelrc still wins), found at `toolkit_path` or by the search of
cuda.local_toolkit; `name` is created as the @cuda hub under that name. Tags of other modules
only create their `name`.""",
    attrs = {
        "name": attr.string(default = "local_cuda", doc = _RULES_CUDA_NAME_DOC),
        "toolkit_path": attr.string(doc = _RULES_CUDA_PATH_DOC),
    },
)

# rules_cuda's tags for toolkits assembled from NVIDIA's redistributable
# components. They have a counterpart here (cuda.redist) but not a mechanical
# one, so they fail with the lines to write.
_redist_json = tag_class(
    doc = "bazel-contrib/rules_cuda's tag; fails naming its counterpart here, cuda.redist (docs/migrating.md).",
    attrs = {
        "components": attr.string_list(),
        "integrity": attr.string(),
        "name": attr.string(),
        "platforms": attr.string_list(),
        "sha256": attr.string(),
        "urls": attr.string_list(),
        "version": attr.string(),
    },
)

_component = tag_class(
    doc = "bazel-contrib/rules_cuda's tag; fails naming its counterpart here, cuda.redist (docs/migrating.md).",
    attrs = {
        "component_name": attr.string(),
        "descriptive_name": attr.string(),
        "integrity": attr.string(),
        "name": attr.string(),
        "sha256": attr.string(),
        "strip_prefix": attr.string(),
        "url": attr.string(),
        "urls": attr.string_list(),
        "version": attr.string(),
    },
)

_redist = tag_class(
    doc = """A CUDA toolkit from NVIDIA's redistributable archives, as its redistrib_<release>.json manifest
describes them (what rules_cuda's cuda.redist_json and XLA's hermetic CUDA use). The repositories
read the manifest when a build selects the toolkit, and fetch only the components that build
needs (the compiler: cuda_nvcc, cuda_cudart, cuda_cccl, and cuda_crt, libnvvm where the release
has them; a library such as libcublas when @cuda//:cublas is used), each checked against the
manifest's sha256. Selected with --@rules_cuda_stages//cuda_rules:toolkit=<major>.<minor>; it
replaces the wheels or Debian packages of that version. Only the root module's tags count.""",
    attrs = {
        "host_compiler_check": attr.bool(default = True, doc = _HOST_COMPILER_CHECK_DOC),
        "redist_json": attr.string(doc = "URL of the manifest (default: redistrib_<version>.json under each of `urls`)."),
        "redist_json_file": attr.label(allow_single_file = [".json"], doc = "The manifest as a file (instead of a URL)."),
        "sha256": attr.string(doc = "The manifest's sha256. Without it the manifest is trusted as downloaded (its archives are still checked against it)."),
        "urls": attr.string_list(
            default = [NVIDIA_REDIST],
            doc = "Base URLs of mirrors, each holding the manifest's relative paths (an internal mirror, " +
                  "file:///path/to/mirror); tried in order. Default: NVIDIA's server.",
        ),
        "version": attr.string(mandatory = True, doc = "NVIDIA's CUDA release, e.g. \"12.6.3\"."),
    },
)

_local_toolkit = tag_class(
    doc = "The locally installed toolkit (@cuda_local), selected with --@rules_cuda_stages//cuda_rules:toolkit=local. Without `path` the search order is CUDA_PATH, CUDA_HOME, nvcc on PATH, /usr/local/cuda.",
    attrs = {
        "path": attr.string(doc = "Toolkit root (the directory holding bin/nvcc)."),
    },
)

# What a repository ships when its root module declares nothing.
DEFAULT_SHIPPED_ARCHS = "sm_80,sm_90,compute_90"

_archs = tag_class(
    doc = """The archs this repository ships: the set CI builds and releases. It becomes the default of
--@rules_cuda_stages//cuda_rules:shipped_archs (a .bazelrc or command-line value of that flag
wins). Builds compile the shipped set unless --@rules_cuda_stages//cuda_rules:archs picks a
subset (or `native`), and every stage of a subset's build is the same action as in the build of
the whole set, so it is served from the same cache (docs/cuda_library.md, "Archs").

Only the root module's tag counts: a library module cannot know what the application ships,
so tags of other modules are ignored. Without a tag: """ + DEFAULT_SHIPPED_ARCHS + ".",
    attrs = {
        "shipped": attr.string(
            mandatory = True,
            doc = "An arch string in the forms of //cuda_rules:archs, e.g. \"sm_75,sm_80,sm_86,sm_90,compute_90\" " +
                  "or rules_cuda's \"compute_80:sm_80,sm_86;compute_90:sm_90,compute_90\".",
        ),
    },
)

def shipped_archs_from_tags(modules):
    """The shipped set from the root module's cuda.archs tags.

    Args:
      modules: a list of struct(name, is_root, shipped = [string]), one per module using the extension.

    Returns:
      struct(archs, origin, error): the arch string, where it comes from (for messages), and
      None or an error message.
    """
    for mod in modules:
        if not mod.is_root or not mod.shipped:
            continue
        where = "cuda.archs(shipped = ...) in the MODULE.bazel of the root module {}".format(mod.name)
        if len(mod.shipped) > 1:
            return struct(archs = "", origin = where, error = (
                "{} is declared {} times: {}. The root module states its shipped set once. " +
                "Fix: keep one cuda.archs(...) tag."
            ).format(where, len(mod.shipped), " and ".join(["shipped = \"{}\"".format(s) for s in mod.shipped])))
        parsed = parse_archs(mod.shipped[0], "shipped = \"{}\" ({})".format(mod.shipped[0], where))
        if parsed.error:
            return struct(archs = "", origin = where, error = parsed.error + "\nFix: correct the cuda.archs(shipped = ...) tag in MODULE.bazel.")
        return struct(archs = mod.shipped[0], origin = "cuda.archs(shipped = \"{}\") in the root MODULE.bazel ({})".format(mod.shipped[0], mod.name), error = None)
    return struct(
        archs = DEFAULT_SHIPPED_ARCHS,
        origin = "the rules' default (the root module declares no cuda.archs(shipped = ...))",
        error = None,
    )

def _redist_fix(version):
    """The fix for rules_cuda's redistributable-component tags, with the release where the tag names one."""
    parts = version.split(".") if version else []
    release = version if len(parts) == 3 else "<release, e.g. 12.6.3>"
    selected = ".".join(parts[:2]) if len(parts) >= 2 else "<major.minor>"
    return ("Fix: declare the release with cuda.redist(version = \"{release}\", sha256 = \"<sha256 of its " +
            "redistrib_{release}.json>\") and select it with --@rules_cuda_stages//cuda_rules:toolkit={selected} " +
            "(every component a build uses is fetched from the manifest, so there is no component list); " +
            "or drop the tag for the hermetic default, CUDA {default} (docs/migrating.md, \"MODULE.bazel\").").format(
        release = release,
        selected = selected,
        default = DEFAULT_TOOLKIT,
    )

def _tag_text(kind, tag, attrs):
    values = ["{} = {}".format(a, repr(getattr(tag, a))) for a in attrs if getattr(tag, a)]
    return "cuda.{}({})".format(kind, ", ".join(values))

def rules_cuda_tags(modules):
    """What rules_cuda's tags (cuda.local_toolchain, cuda.toolkit(name = ...)) ask of this extension.

    Args:
      modules: a list of struct(name, is_root, toolkit = [tag], local_toolchain = [tag],
        redist_json = [tag], component = [tag]), one per module using the extension.

    Returns:
      struct(local, path, origin, names, error): local: the root module asks for the installed
      toolkit (it becomes the default toolkit); path: its toolkit_path ("" to search); origin:
      the tag, for messages; names: the hub names the tags give (every module's); error: None or
      a message.
    """
    local = False
    path = ""
    origin = ""
    names = []
    for mod in modules:
        for tag in mod.redist_json:
            return struct(local = False, path = "", origin = "", names = [], error = (
                "rules_cuda_stages: {} in the MODULE.bazel of {} is bazel-contrib/rules_cuda's toolkit from NVIDIA's " +
                "redistributable components. {}"
            ).format(_tag_text("redist_json", tag, ["name", "version", "urls", "sha256", "components"]), mod.name, _redist_fix(tag.version)))
        for tag in mod.component:
            return struct(local = False, path = "", origin = "", names = [], error = (
                "rules_cuda_stages: {} in the MODULE.bazel of {} is bazel-contrib/rules_cuda's CUDA component archive. {}"
            ).format(_tag_text("component", tag, ["name", "component_name", "version"]), mod.name, _redist_fix("")))
        local_tags = [("local_toolchain", t) for t in mod.local_toolchain]
        for tag in mod.toolkit:
            if not tag.name:
                if not tag.version:
                    return struct(local = False, path = "", origin = "", names = [], error = (
                        "rules_cuda_stages: cuda.toolkit() in the MODULE.bazel of {} names no toolkit. Fix: give " +
                        "`version` for a hermetic toolkit (e.g. cuda.toolkit(version = \"13.0\")), or rules_cuda's " +
                        "`name` for the installed one (cuda.toolkit(name = \"cuda\", toolkit_path = \"\"))."
                    ).format(mod.name))
                continue
            if tag.version or tag.components_mapping or tag.nvcc_version:
                return struct(local = False, path = "", origin = "", names = [], error = (
                    "rules_cuda_stages: {} in the MODULE.bazel of {} is bazel-contrib/rules_cuda's toolkit from NVIDIA's " +
                    "redistributable components (its version, components_mapping or nvcc_version). {}"
                ).format(_tag_text("toolkit", tag, ["name", "version", "components_mapping", "nvcc_version"]), mod.name, _redist_fix(tag.version)))
            local_tags.append(("toolkit", tag))
        for kind, tag in local_tags:
            if tag.name not in names:
                names.append(tag.name)
            if not mod.is_root:
                continue
            text = _tag_text(kind, tag, ["name", "toolkit_path"])
            if local and tag.toolkit_path != path:
                return struct(local = False, path = "", origin = "", names = [], error = (
                    "rules_cuda_stages: the root module {} names two installed toolkits: {} and {}. " +
                    "Fix: keep one toolkit_path (names may differ)."
                ).format(mod.name, origin, text))
            if not local:
                origin = text
            local = True
            path = tag.toolkit_path
    return struct(local = local, path = path, origin = origin, names = names, error = None)

def repo_name(version, platform = None):
    """@cuda_<major>_<minor>_<platform>: the toolkit of one version for one platform."""
    return "cuda_" + version.replace(".", "_") + ("_" + platform if platform else "")

def _library_entries(version, source):
    """{component: {package, version, archives: {platform: [...]}}} of the table of `source`."""
    if source == "wheels":
        return CUDA_LIBRARY_VERSIONS.get(version, {}).get("components", {})
    if source == "debs":
        return CUDA_DEBS.get(version, {}).get("libraries", {})
    return {}

def library_repositories(toolkits):
    """The library repositories to declare: one per toolkit, platform and component with its own repository.

    Args:
      toolkits: {version: struct(source, platforms)} of the hermetic toolkits in use.

    Returns:
      {toolkit version: {platform: {component: struct(name, entry)}}}: the repository name and
      the table entry (package, version, archives per platform; None for a redist toolkit).
    """
    out = {}
    for version, toolkit in toolkits.items():
        out[version] = {}
        entries = _library_entries(version, toolkit.source)
        for platform in toolkit.platforms:
            per = {}
            for component in sorted(CUDA_COMPONENTS.keys()):
                spec = CUDA_COMPONENTS[component]
                if spec["toolkit"] == "yes":
                    continue
                if toolkit.source == "redist":
                    if not spec.get("redist"):
                        continue
                    entry = None
                elif platform in entries.get(component, {}).get("archives", {}):
                    entry = entries[component]
                else:
                    continue
                per[component] = struct(name = "{}_{}".format(repo_name(version, platform), component), entry = entry)
            out[version][platform] = per
    return out

def toolkits_from_tags(modules):
    """The hermetic toolkits the modules' tags ask for, and where each comes from.

    Args:
      modules: a list of struct(name, is_root, toolkit = [struct(version, host_compiler_check)],
        redist = [struct(version, ...)]), one per module using the extension.

    Returns:
      struct(toolkits = {version: struct(source, platforms, check, redist)}, error): source is
      "wheels", "debs" or "redist"; redist is the root module's tag (or None).
    """
    redists = {}
    for mod in modules:
        if not mod.is_root:
            continue
        for tag in mod.redist:
            version, error = parse_version(tag.version)
            if error:
                return struct(toolkits = {}, error = error)
            if version in redists:
                return struct(toolkits = {}, error = (
                    "rules_cuda_stages: CUDA {v} is declared twice by the root module: cuda.redist(version = \"{a}\") " +
                    "and cuda.redist(version = \"{b}\"). Fix: keep one cuda.redist(...) tag per CUDA version."
                ).format(v = version, a = redists[version].version, b = tag.version))
            redists[version] = tag
    checks = {DEFAULT_TOOLKIT: True}
    for mod in modules:
        for tag in mod.toolkit:
            checks.setdefault(tag.version, True)
            if mod.is_root and not tag.host_compiler_check:
                checks[tag.version] = False
    for version, tag in redists.items():
        checks.setdefault(version, True)
        if not tag.host_compiler_check:
            checks[version] = False
    known = known_versions()
    toolkits = {}
    for version in checks.keys():
        if version in redists:
            source = "redist"
        elif version in known:
            source = known[version]
        else:
            where = [m.name for m in modules if version in [t.version for t in m.toolkit]]
            return struct(toolkits = {}, error = "{} (in cuda.toolkit() of module {})".format(unknown_version_error(version), ", ".join(where)))
        toolkits[version] = struct(
            source = source,
            platforms = toolkit_platforms(source, version),
            check = checks[version],
            redist = redists.get(version),
        )
    return struct(toolkits = toolkits, error = None)

def _redist_attrs(tag):
    if tag == None:
        return {}
    return {
        "manifest_file": tag.redist_json_file,
        "manifest_sha256": tag.sha256,
        "manifest_urls": [] if tag.redist_json_file else manifest_urls(tag.version, tag.redist_json, tag.urls),
        "mirrors": tag.urls,
        "release": tag.version,
    }

# The installed toolkit's repository. (rules_cuda 0.2 named its toolkit
# repository @local_cuda: that name is the @cuda hub here, see _cuda_impl.)
LOCAL_TOOLKIT_REPO = "cuda_local"

def _cuda_impl(module_ctx):
    rules_cuda = rules_cuda_tags([
        struct(
            name = mod.name,
            is_root = mod.is_root,
            toolkit = mod.tags.toolkit,
            local_toolchain = mod.tags.local_toolchain,
            redist_json = mod.tags.redist_json,
            component = mod.tags.component,
        )
        for mod in module_ctx.modules
    ])
    if rules_cuda.error:
        fail(rules_cuda.error)
    path = ""
    for mod in module_ctx.modules:
        for tag in mod.tags.local_toolkit:
            if mod.is_root or not path:
                path = tag.path or path
    if rules_cuda.path:
        path = rules_cuda.path
    declared = toolkits_from_tags([
        struct(name = mod.name, is_root = mod.is_root, toolkit = [t for t in mod.tags.toolkit if t.version], redist = mod.tags.redist)
        for mod in module_ctx.modules
    ])
    if declared.error:
        fail(declared.error)
    local_toolkit_repository(
        name = LOCAL_TOOLKIT_REPO,
        path = path,
        selected_by = rules_cuda.origin + " in the root MODULE.bazel" if rules_cuda.local else "",
    )
    arch = module_ctx.os.arch
    host = {"amd64": "x86_64", "arm64": "aarch64"}.get(arch, arch)
    toolkits = {"local": {host: LOCAL_TOOLKIT_REPO}}
    for version, toolkit in declared.toolkits.items():
        toolkits[version] = {}
        for platform in toolkit.platforms:
            hermetic_toolkit_repository(
                name = repo_name(version, platform),
                version = version,
                platform = platform,
                source = toolkit.source,
                host_compiler_check = toolkit.check,
                **_redist_attrs(toolkit.redist)
            )
            toolkits[version][platform] = repo_name(version, platform)
    cuda_toolchains_hub(
        name = "cuda_toolchains",
        toolkits = json.encode(toolkits),
        default = "local" if rules_cuda.local else DEFAULT_TOOLKIT,
    )

    # NVIDIA's libraries: one repository per version, platform and library,
    # fetched only when a build uses one of its targets through @cuda.
    libraries = library_repositories(declared.toolkits)
    for version, per_platform in libraries.items():
        toolkit = declared.toolkits[version]
        for platform, per_component in per_platform.items():
            for component, repo in per_component.items():
                attrs = dict(
                    name = repo.name,
                    component = component,
                    version = version,
                    platform = platform,
                    source = toolkit.source,
                )
                if repo.entry:
                    attrs.update(
                        package = repo.entry["package"],
                        package_version = repo.entry["version"],
                        archives = json.encode(repo.entry["archives"]),
                    )
                if toolkit.source == "debs":
                    # Debian ships the libraries' headers in nvidia-cuda-dev, in the toolkit.
                    attrs["headers"] = "@{}//:headers".format(repo_name(version, platform))
                attrs.update(_redist_attrs(toolkit.redist))
                cuda_library_repository(**attrs)
    cuda_hub_repository(
        name = "cuda",
        toolkits = json.encode(toolkits),
        sources = json.encode(dict({v: t.source for v, t in declared.toolkits.items()}, local = "local")),
        libraries = json.encode({
            v: {p: {c: r.name for c, r in per.items()} for p, per in per_platform.items()}
            for v, per_platform in libraries.items()
        }),
    )

    # The hub under rules_cuda's other names: @local_cuda (rules_cuda 0.2's
    # repository, so `use_repo(cuda, "local_cuda")` keeps working) and the
    # `name` of every rules_cuda tag.
    for alias in ["local_cuda"] + [n for n in rules_cuda.names if n not in ("cuda", "local_cuda")]:
        cuda_hub_alias_repository(name = alias, hub = "cuda")

    shipped = shipped_archs_from_tags([
        struct(name = mod.name, is_root = mod.is_root, shipped = [tag.shipped for tag in mod.tags.archs])
        for mod in module_ctx.modules
    ])
    if shipped.error:
        fail(shipped.error)
    shipped_archs_repository(name = "cuda_shipped_archs", archs = shipped.archs, origin = shipped.origin)

    # Fetched (the GPUs detected) only by a build that reads it: one with
    # --@rules_cuda_stages//cuda_rules:archs=native.
    native_archs_repository(name = "cuda_native_archs")

    # The hermetic host C++ toolchains, fetched only by a build that selects
    # one (--@rules_cuda_stages//cuda_rules:host_toolchain=gcc10 or clang22;
    # cuda_rules/host_toolchain/BUILD.bazel registers them).
    for toolchain in HOST_GCC:
        host_gcc_repository(name = "cuda_host_" + toolchain, toolchain = toolchain)
    for toolchain in HOST_CLANG:
        host_clang_repository(name = "cuda_host_" + toolchain, toolchain = toolchain)

    # The machine's C++ compiler, in the keys of the stages that run it when
    # the build's C++ toolchain is the one Bazel configures from the machine.
    host_compiler_id_repository(name = "cuda_host_compiler_id")

cuda = module_extension(
    implementation = _cuda_impl,
    tag_classes = {
        "archs": _archs,
        "component": _component,
        "local_toolchain": _local_toolchain,
        "local_toolkit": _local_toolkit,
        "redist": _redist,
        "redist_json": _redist_json,
        "toolkit": _toolkit,
    },
    environ = ["CUDA_PATH", "CUDA_HOME", "PATH"],
)
