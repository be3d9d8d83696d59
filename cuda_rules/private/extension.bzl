"""The `cuda` module extension: creates the CUDA toolkit repositories, NVIDIA's libraries, the `@cuda` hub and the arch settings' repositories."""

load("//cuda_rules/private:archs.bzl", "parse_archs")
load("//cuda_rules/private/repo:arch_repositories.bzl", "native_archs_repository", "shipped_archs_repository")
load("//cuda_rules/private/repo:components.bzl", "CUDA_COMPONENTS")
load("//cuda_rules/private/repo:cuda_libraries.bzl", "CUDA_LIBRARY_VERSIONS")
load("//cuda_rules/private/repo:cuda_versions.bzl", "CUDA_VERSIONS")
load("//cuda_rules/private/repo:library_repository.bzl", "cuda_hub_repository", "cuda_library_repository")
load(
    "//cuda_rules/private/repo:toolkit_repository.bzl",
    "cuda_toolchains_hub",
    "local_toolkit_repository",
    "select_wheels",
    "wheel_toolkit_repository",
)

visibility(["//cuda_rules/...", "//tests/..."])

DEFAULT_TOOLKIT = "13.0"

_toolkit = tag_class(
    doc = """A hermetic CUDA toolkit from NVIDIA's PyPI wheels, fetched with Bazel's downloader and
pinned by sha256 (cuda_rules/private/repo/cuda_versions.bzl). Creates @cuda_<major>_<minor>.
Selected with --@rules_cuda_stages//cuda_rules:toolkit=<version> (default """ + DEFAULT_TOOLKIT + ").",
    attrs = {
        "version": attr.string(mandatory = True, doc = "CUDA version, e.g. \"13.0\"."),
    },
)

_local_toolkit = tag_class(
    doc = "The locally installed toolkit (@local_cuda), selected with --@rules_cuda_stages//cuda_rules:toolkit=local. Without `path` the search order is CUDA_PATH, CUDA_HOME, nvcc on PATH, /usr/local/cuda.",
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

def repo_name(version):
    return "cuda_" + version.replace(".", "_")

def library_repositories(libraries, versions):
    """The library repositories to declare: one per CUDA version and component with its own repository.

    Args:
      libraries: the CUDA_LIBRARY_VERSIONS table.
      versions: the hermetic toolkit versions in use.

    Returns:
      {toolkit version: {component: struct(name, entry)}}: the repository name and the
      table entry (package, version, archives per platform).
    """
    out = {}
    for version in versions:
        out[version] = {}
        for component, entry in libraries.get(version, {}).get("components", {}).items():
            if component not in CUDA_COMPONENTS or CUDA_COMPONENTS[component]["toolkit"] == "yes":
                continue
            out[version][component] = struct(name = "{}_{}".format(repo_name(version), component), entry = entry)
    return out

def _cuda_impl(module_ctx):
    path = ""
    versions = [DEFAULT_TOOLKIT]
    for mod in module_ctx.modules:
        for tag in mod.tags.local_toolkit:
            if mod.is_root or not path:
                path = tag.path or path
        for tag in mod.tags.toolkit:
            if tag.version not in CUDA_VERSIONS:
                _, error = select_wheels(CUDA_VERSIONS, tag.version, "x86_64")
                fail("{} (in cuda.toolkit() of module {})".format(error, mod.name))
            if tag.version not in versions:
                versions.append(tag.version)
    local_toolkit_repository(name = "local_cuda", path = path)
    toolkits = {"local": "local_cuda"}
    for version in versions:
        wheel_toolkit_repository(name = repo_name(version), version = version)
        toolkits[version] = repo_name(version)
    cuda_toolchains_hub(name = "cuda_toolchains", toolkits = toolkits)

    # NVIDIA's libraries: one repository per version and library, fetched only
    # when a build uses one of its targets through @cuda.
    libraries = library_repositories(CUDA_LIBRARY_VERSIONS, versions)
    for version, per_component in libraries.items():
        for component, repo in per_component.items():
            cuda_library_repository(
                name = repo.name,
                component = component,
                version = version,
                package = repo.entry["package"],
                package_version = repo.entry["version"],
                archives = json.encode(repo.entry["archives"]),
            )
    cuda_hub_repository(
        name = "cuda",
        toolkits = json.encode(toolkits),
        libraries = json.encode({v: {c: r.name for c, r in per.items()} for v, per in libraries.items()}),
    )

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

cuda = module_extension(
    implementation = _cuda_impl,
    tag_classes = {
        "archs": _archs,
        "local_toolkit": _local_toolkit,
        "toolkit": _toolkit,
    },
    environ = ["CUDA_PATH", "CUDA_HOME", "PATH"],
)
