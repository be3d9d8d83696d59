"""Unit tests of the hermetic toolkits: the wheels and Debian tables, redistrib manifests, the tags, the host compiler check."""

load("@bazel_skylib//lib:unittest.bzl", "asserts", "unittest")
load("//cuda_rules/private:extension.bzl", "library_repositories", "repo_name", "rules_cuda_tags", "toolkits_from_tags")  # buildifier: disable=bzl-visibility
load("//cuda_rules/private:toolchain.bzl", "host_clang_major", "host_compiler_error", "host_gcc_major", "no_toolkit_message")  # buildifier: disable=bzl-visibility
load("//cuda_rules/private/repo:cuda_debs.bzl", "CUDA_DEBS")  # buildifier: disable=bzl-visibility
load("//cuda_rules/private/repo:cuda_versions.bzl", "CUDA_VERSIONS")  # buildifier: disable=bzl-visibility
load("//cuda_rules/private/repo:redist.bzl", "component_archive", "manifest_urls", "parse_version", "toolkit_archives")  # buildifier: disable=bzl-visibility
load("//cuda_rules/private/repo:toolkit_repository.bzl", "host_config_limits", "known_versions", "select_wheels", "toolkit_platforms", "unknown_version_error")  # buildifier: disable=bzl-visibility

_PACKAGES = ["nvidia-cuda-nvcc", "nvidia-nvvm", "nvidia-cuda-crt", "nvidia-cuda-runtime", "nvidia-cuda-cccl"]

def _contains_all(env, text, parts):
    for part in parts:
        asserts.true(env, part in text, "{} not in: {}".format(part, text))

def _table_test_impl(ctx):
    env = unittest.begin(ctx)
    asserts.true(env, "13.0" in CUDA_VERSIONS, "CUDA 13.0 is in the table")
    asserts.true(env, len(CUDA_VERSIONS) >= 2, "at least two CUDA versions")
    for version, entry in CUDA_VERSIONS.items():
        for platform in ["x86_64", "aarch64"]:
            wheels, error = select_wheels(CUDA_VERSIONS, version, platform)
            asserts.equals(env, None, error)
            asserts.equals(env, sorted(_PACKAGES), sorted([w["package"] for w in wheels]), "packages of {} {}".format(version, platform))
            for w in wheels:
                asserts.equals(env, 64, len(w["sha256"]), "sha256 of " + w["filename"])
                asserts.true(env, w["url"].startswith("https://files.pythonhosted.org/packages/"), w["url"])
                asserts.true(env, w["url"].endswith(w["filename"]), w["url"])
                asserts.true(env, w["version"].startswith(version.split(".")[0] + "."), w["version"])
                asserts.true(env, platform in w["filename"], w["filename"])
        asserts.equals(env, version + ".", entry["packages"]["nvidia-cuda-nvcc"][:len(version) + 1])
    return unittest.end(env)

table_test = unittest.make(_table_test_impl)

# What a toolkit made of Debian's packages must have: the stage tools, NVVM, the
# compiler's and the runtime's headers, CCCL (a directory), the runtime libraries.
_DEB_REQUIRED = [
    "bin/nvcc",
    "bin/cudafe++",
    "bin/ptxas",
    "bin/fatbinary",
    "bin/nvlink",
    "bin/crt/link.stub",
    "nvvm/bin/cicc",
    "nvvm/libdevice/libdevice.10.bc",
    "nvvm/lib64/libnvvm.so",
    "include/cuda_runtime.h",
    "include/crt/host_config.h",
    "include/nvml.h",
    "lib/libcudart_static.a",
    "lib/libcudadevrt.a",
    "lib/libcudart.so.12",
]

def _debs_table_test_impl(ctx):
    env = unittest.begin(ctx)
    asserts.true(env, "12.4" in CUDA_DEBS, "CUDA 12.4 is in the Debian table")
    for version, entry in CUDA_DEBS.items():
        asserts.equals(env, ["aarch64", "x86_64"], sorted(entry["debs"].keys()), "platforms of " + version)
        asserts.equals(env, "debs", known_versions()[version])
        asserts.equals(env, ["aarch64", "x86_64"], toolkit_platforms("debs", version))
        for platform, debs in entry["debs"].items():
            dests = {}
            prefixes = []
            for deb in debs:
                asserts.equals(env, "deb", deb["type"])
                asserts.equals(env, 64, len(deb["sha256"]), "sha256 of " + deb["filename"])
                asserts.true(env, deb["url"].startswith("https://deb.debian.org/debian/pool/"), deb["url"])
                asserts.true(env, deb["url"].endswith("/" + deb["filename"]), deb["url"])
                asserts.true(env, deb["filename"].endswith(("_amd64.deb" if platform == "x86_64" else "_arm64.deb", "_all.deb")), deb["filename"])
                if "files" in deb:
                    for member, dest in deb["files"].items():
                        asserts.true(env, member.startswith("./usr/"), member)
                        asserts.false(env, dest.startswith("/") or "usr/" in dest or ".." in dest, "{} -> {}".format(member, dest))
                        asserts.false(env, dest in dests, "{} from {} and {}".format(dest, dests.get(dest), deb["package"]))
                        dests[dest] = deb["package"]
                else:
                    prefixes.append(deb["output"])
            for path in _DEB_REQUIRED:
                asserts.true(env, path in dests, "{} {}: no package gives {}".format(version, platform, path))
            asserts.equals(env, ["include", "include", "include"], prefixes, "CCCL's three packages")
        for component, lib in entry["libraries"].items():
            for platform, debs in lib["archives"].items():
                for deb in debs:
                    for dest in deb["files"].values():
                        asserts.true(env, dest.startswith(("lib/", "include/")), "{} {}: {}".format(component, platform, dest))
    return unittest.end(env)

debs_table_test = unittest.make(_debs_table_test_impl)

def _unknown_version_test_impl(ctx):
    env = unittest.begin(ctx)
    wheels, error = select_wheels(CUDA_VERSIONS, "13.7", "x86_64")
    asserts.equals(env, None, wheels)
    _contains_all(env, error, ["unknown CUDA version '13.7'", "13.0", "12.4", "tools/cuda_wheels/lock.py --add 13.7", "cuda.redist(version = \"13.7.<patch>\")"])
    asserts.equals(env, error, unknown_version_error("13.7"))
    return unittest.end(env)

unknown_version_test = unittest.make(_unknown_version_test_impl)

def _missing_platform_test_impl(ctx):
    env = unittest.begin(ctx)
    table = {"13.9": {"packages": {}, "wheels": {"x86_64": [{"package": "nvidia-cuda-nvcc"}]}}}
    wheels, error = select_wheels(table, "13.9", "aarch64")
    asserts.equals(env, None, wheels)
    _contains_all(env, error, ["CUDA 13.9 has no wheels for aarch64", "it has: x86_64", "toolkit=local"])
    return unittest.end(env)

missing_platform_test = unittest.make(_missing_platform_test_impl)

def _archive(component, version, platform):
    return {
        "relative_path": "{c}/{p}/{c}-{p}-{v}-archive.tar.xz".format(c = component, p = platform, v = version),
        "sha256": "a" * 64,
    }

def _manifest(release, components):
    out = {"release_label": release, "release_product": "cuda"}
    for component, version in components.items():
        out[component] = {
            "linux-sbsa": _archive(component, version, "linux-sbsa"),
            "linux-x86_64": _archive(component, version, "linux-x86_64"),
            "name": component,
            "version": version,
        }
    return out

def _redist_test_impl(ctx):
    env = unittest.begin(ctx)
    asserts.equals(env, ("12.6", None), parse_version("12.6.3"))
    asserts.equals(env, ("13.0", None), parse_version("13.0"))
    _, error = parse_version("12")
    _contains_all(env, error, ["cuda.redist(version = \"12\")", "MAJOR.MINOR.PATCH"])
    asserts.equals(env, ["https://m1/redistrib_12.6.3.json", "file:///m2/redistrib_12.6.3.json"], manifest_urls("12.6.3", "", ["https://m1/", "file:///m2"]))
    asserts.equals(env, ["https://x/r.json"], manifest_urls("12.6.3", "https://x/r.json", ["https://m1"]))

    # A CUDA 12 manifest: NVVM and the compiler's headers are in cuda_nvcc.
    cuda12 = _manifest("12.6.3", {"cuda_cccl": "12.6.77", "cuda_cudart": "12.6.77", "cuda_nvcc": "12.6.85", "cuda_nvtx": "12.6.77", "libcublas": "12.6.4.1"})
    archive, error = component_archive(cuda12, "cuda_nvcc", "linux-sbsa", ["https://a", "https://b/"], "redistrib_12.6.3.json")
    asserts.equals(env, None, error)
    asserts.equals(env, [
        "https://a/cuda_nvcc/linux-sbsa/cuda_nvcc-linux-sbsa-12.6.85-archive.tar.xz",
        "https://b/cuda_nvcc/linux-sbsa/cuda_nvcc-linux-sbsa-12.6.85-archive.tar.xz",
    ], archive["urls"])
    asserts.equals(env, "cuda_nvcc-linux-sbsa-12.6.85-archive", archive["strip_prefix"])
    asserts.equals(env, "a" * 64, archive["sha256"])
    archives, have, error = toolkit_archives(cuda12, "linux-x86_64", ["https://a"], "m", extra = ["cuda_nvtx", "cuda_profiler_api"])
    asserts.equals(env, None, error)
    asserts.equals(env, ["cuda_nvcc", "cuda_cudart", "cuda_cccl", "cuda_nvtx"], have, "a 12.x manifest: no cuda_crt, libnvvm, cuda_profiler_api")
    asserts.equals(env, 4, len(archives))

    # CUDA 13 split cuda_crt and libnvvm out of cuda_nvcc.
    cuda13 = _manifest("13.0.2", {"cuda_cccl": "13.0.85", "cuda_crt": "13.0.88", "cuda_cudart": "13.0.96", "cuda_nvcc": "13.0.88", "libnvvm": "13.0.88"})
    _, have, error = toolkit_archives(cuda13, "linux-x86_64", ["https://a"], "m")
    asserts.equals(env, None, error)
    asserts.equals(env, ["cuda_nvcc", "cuda_cudart", "cuda_cccl", "cuda_crt", "libnvvm"], have)

    # What is missing is named, with what there is.
    _, error = component_archive(cuda12, "libcufft", "linux-x86_64", ["https://a"], "redistrib_12.6.3.json")
    _contains_all(env, error, ["redistrib_12.6.3.json has no component libcufft", "cuda_nvcc", "libcublas"])
    _, error = component_archive(cuda12, "cuda_nvcc", "linux-ppc64le", ["https://a"], "redistrib_12.6.3.json")
    _contains_all(env, error, ["no cuda_nvcc for linux-ppc64le", "linux-sbsa, linux-x86_64"])
    broken = dict(cuda12, cuda_nvcc = {"linux-x86_64": {"relative_path": "x.tar.xz", "sha256": "short"}})
    _, error = component_archive(broken, "cuda_nvcc", "linux-x86_64", ["https://a"], "m")
    _contains_all(env, error, ["lacks a relative_path or a sha256"])
    _, _, error = toolkit_archives(_manifest("12.6.3", {"cuda_nvcc": "1", "cuda_cudart": "1"}), "linux-x86_64", ["https://a"], "m")
    _contains_all(env, error, ["no component cuda_cccl"])
    return unittest.end(env)

redist_test = unittest.make(_redist_test_impl)

def _tag(version, host_compiler_check = True, **kwargs):
    return struct(version = version, host_compiler_check = host_compiler_check, **kwargs)

def _redist_tag(version, host_compiler_check = True):
    return _tag(version, host_compiler_check, redist_json = "", redist_json_file = None, sha256 = "", urls = ["https://m"])

def _module(name, is_root, toolkit = [], redist = []):
    return struct(name = name, is_root = is_root, toolkit = toolkit, redist = redist)

def _tags_test_impl(ctx):
    env = unittest.begin(ctx)
    ours = _module("rules_cuda_stages", False, toolkit = [_tag("13.0"), _tag("13.5"), _tag("12.4")])

    # Sources, platforms, the default toolkit always.
    got = toolkits_from_tags([_module("app", True), ours])
    asserts.equals(env, None, got.error)
    asserts.equals(env, ["12.4", "13.0", "13.5"], sorted(got.toolkits.keys()))
    asserts.equals(env, "debs", got.toolkits["12.4"].source)
    asserts.equals(env, "wheels", got.toolkits["13.0"].source)
    asserts.equals(env, ["aarch64", "x86_64"], got.toolkits["13.0"].platforms)
    asserts.true(env, got.toolkits["12.4"].check)
    asserts.equals(env, "cuda_12_4_aarch64", repo_name("12.4", "aarch64"))

    # The root module's redist replaces the wheels of its version and adds its own; its check flag counts.
    got = toolkits_from_tags([
        _module("app", True, toolkit = [_tag("12.4", host_compiler_check = False)], redist = [_redist_tag("13.0.2"), _redist_tag("12.6.3")]),
        ours,
    ])
    asserts.equals(env, None, got.error)
    asserts.equals(env, "redist", got.toolkits["13.0"].source)
    asserts.equals(env, "13.0.2", got.toolkits["13.0"].redist.version)
    asserts.equals(env, "redist", got.toolkits["12.6"].source)
    asserts.equals(env, ["aarch64", "x86_64"], got.toolkits["12.6"].platforms)
    asserts.false(env, got.toolkits["12.4"].check, "the root module's host_compiler_check = False")

    # Another module's redist does not count (as cuda.archs).
    got = toolkits_from_tags([_module("app", True), _module("lib", False, redist = [_redist_tag("13.0.2")]), ours])
    asserts.equals(env, "wheels", got.toolkits["13.0"].source)

    # Errors: two releases of one version, a malformed release, an unknown version.
    got = toolkits_from_tags([_module("app", True, redist = [_redist_tag("12.6.2"), _redist_tag("12.6.3")])])
    _contains_all(env, got.error, ["CUDA 12.6 is declared twice", "\"12.6.2\"", "\"12.6.3\""])
    got = toolkits_from_tags([_module("app", True, redist = [_redist_tag("twelve")])])
    _contains_all(env, got.error, ["cuda.redist(version = \"twelve\")"])
    got = toolkits_from_tags([_module("app", True, toolkit = [_tag("12.9")])])
    _contains_all(env, got.error, ["unknown CUDA version '12.9'", "in cuda.toolkit() of module app"])
    return unittest.end(env)

tags_test = unittest.make(_tags_test_impl)

def _libraries_test_impl(ctx):
    env = unittest.begin(ctx)
    got = toolkits_from_tags([_module("app", True, toolkit = [_tag("12.4")], redist = [_redist_tag("12.6.3")])])
    libraries = library_repositories(got.toolkits)

    # Debian: what it packages, per platform; no cuDNN, NCCL, nvPTXCompiler.
    debian = libraries["12.4"]["x86_64"]
    asserts.equals(env, "cuda_12_4_x86_64_cublas", debian["cublas"].name)
    asserts.true(env, "aarch64" in libraries["12.4"])
    for component in ["cudnn", "nccl", "nvptxcompiler"]:
        asserts.false(env, component in debian, component)

    # Redist: every component of the CUDA release, read from the manifest at fetch.
    redist = libraries["12.6"]["aarch64"]
    asserts.equals(env, "cuda_12_6_aarch64_cufft", redist["cufft"].name)
    asserts.equals(env, None, redist["cufft"].entry)
    for component in ["cudnn", "nccl"]:
        asserts.false(env, component in redist, component)

    # Wheels: every component, each platform.
    wheels = libraries["13.0"]["aarch64"]
    asserts.equals(env, "cuda_13_0_aarch64_cudnn", wheels["cudnn"].name)
    asserts.false(env, "nvtx" in wheels, "in-toolkit components have no repository")
    return unittest.end(env)

libraries_test = unittest.make(_libraries_test_impl)

def _host_compiler_test_impl(ctx):
    env = unittest.begin(ctx)

    # Bazel's autoconfigured gcc 14 with a sysroot (what tools/bazelw once configured).
    gcc14 = struct(compiler = "gcc", built_in_include_directories = [
        "/usr/lib/gcc/x86_64-linux-gnu/14/include",
        "/host/usr/include",
        "/usr/include/c++/14",
    ])
    asserts.equals(env, 14, host_gcc_major(gcc14))

    # A hermetic gcc with a full version, include-fixed too.
    hermetic = struct(compiler = "gcc", built_in_include_directories = [
        "external/gcc_toolchain/lib/gcc/x86_64-linux/13.2.0/include",
        "external/gcc_toolchain/lib/gcc/x86_64-linux/13.2.0/include-fixed",
    ])
    asserts.equals(env, 13, host_gcc_major(hermetic))

    # clang, or no telling: no check.
    clang = struct(compiler = "clang", built_in_include_directories = ["/usr/lib/llvm-17/lib/clang/17/include"])
    asserts.equals(env, 0, host_gcc_major(clang))
    asserts.equals(env, 0, host_gcc_major(struct(compiler = "gcc", built_in_include_directories = ["/usr/include"])))
    asserts.equals(env, 0, host_gcc_major(None))

    asserts.equals(env, None, host_compiler_error("@cuda_12_4_x86_64", "12.4", "gcc", 13, 13, "/usr/bin/gcc"))
    asserts.equals(env, None, host_compiler_error("@cuda_12_4_x86_64", "12.4", "gcc", 0, 14, "/usr/bin/gcc"), "the toolkit's limit unknown")
    error = host_compiler_error("@cuda_12_4_x86_64", "12.4", "gcc", 13, 14, "/usr/bin/gcc")
    _contains_all(env, error, [
        "CUDA 12.4 (@cuda_12_4_x86_64) accepts gcc 13 and older",
        "the C++ toolchain's compiler is gcc 14 (/usr/bin/gcc)",
        "--repo_env=CC=gcc-13",
        "--@rules_cuda_stages//cuda_rules:host_toolchain=gcc10",
        "host_compiler_check = False",
    ])

    # clang as nvcc's host compiler: its resource directory says its major.
    asserts.equals(env, 17, host_clang_major(clang))
    asserts.equals(env, 21, host_clang_major(struct(compiler = "clang", built_in_include_directories = [
        "/usr/include/c++/12",
        "/usr/lib/llvm-21/lib/clang/21/include",
    ])))
    asserts.equals(env, 0, host_clang_major(gcc14))
    asserts.equals(env, 0, host_clang_major(None))
    error = host_compiler_error("@cuda_12_4_x86_64", "12.4", "clang", 17, 21, "/usr/bin/clang")
    _contains_all(env, error, [
        "CUDA 12.4 (@cuda_12_4_x86_64) accepts clang 17 and older as nvcc's host compiler",
        "the C++ toolchain's compiler is clang 21 (/usr/bin/clang)",
        "--repo_env=CC=clang-17",
        "--@rules_cuda_stages//cuda_rules:host_toolchain=gcc10",
        "Or let clang compile the CUDA itself: --@rules_cuda_stages//cuda_rules:compiler=clang",
    ])
    asserts.false(env, "compiler=clang" in host_compiler_error("@cuda_12_4_x86_64", "12.4", "gcc", 13, 14, "/usr/bin/gcc"))

    # The limits, from the headers of CUDA 12.4 and 13.0 (crt/host_config.h's lines).
    asserts.equals(env, {"gcc": 13, "clang": 17}, host_config_limits(
        "#if __GNUC__ > 13\n#error\n#endif\n#if (__clang_major__ >= 18) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3))\n",
    ))
    asserts.equals(env, {"gcc": 15, "clang": 20}, host_config_limits(
        "#if (__GRCO_CLANG_COMPILER__ == 1) && ((__clang_major__ < 16) || (__clang_major__ > 20))\n#if __GNUC__ > 15\n" +
        "#if (__clang_major__ >= 21) || (__clang_major__ < 3)\n",
    ))
    asserts.equals(env, {}, host_config_limits("#if defined(__GNUC__)\n"))
    return unittest.end(env)

host_compiler_test = unittest.make(_host_compiler_test_impl)

# rules_cuda's tags (cuda.local_toolchain, cuda.toolkit(name = ...), cuda.redist_json, cuda.component).
def _rc_toolkit(name = "", toolkit_path = "", version = "", components_mapping = {}, nvcc_version = ""):
    return struct(name = name, toolkit_path = toolkit_path, version = version, components_mapping = components_mapping, nvcc_version = nvcc_version)

def _rc_module(name, is_root, toolkit = [], local_toolchain = [], redist_json = [], component = []):
    return struct(name = name, is_root = is_root, toolkit = toolkit, local_toolchain = local_toolchain, redist_json = redist_json, component = component)

def _rules_cuda_tags_test_impl(ctx):
    env = unittest.begin(ctx)
    ours = _rc_module("rules_cuda_stages", False, toolkit = [_rc_toolkit(version = "13.0")])

    # No rules_cuda tag: nothing changes.
    got = rules_cuda_tags([_rc_module("app", True), ours])
    asserts.equals(env, None, got.error)
    asserts.false(env, got.local)
    asserts.equals(env, [], got.names)

    # rules_cuda 0.2's cuda.local_toolchain in the root module: the installed toolkit, its name.
    got = rules_cuda_tags([_rc_module("app", True, local_toolchain = [struct(name = "local_cuda", toolkit_path = "")]), ours])
    asserts.equals(env, None, got.error)
    asserts.true(env, got.local)
    asserts.equals(env, "", got.path)
    asserts.equals(env, ["local_cuda"], got.names)
    asserts.equals(env, "cuda.local_toolchain(name = \"local_cuda\")", got.origin)

    # rules_cuda's cuda.toolkit(name = ..., toolkit_path = ...): the same, with its path.
    got = rules_cuda_tags([_rc_module("app", True, toolkit = [_rc_toolkit(name = "cuda", toolkit_path = "/opt/cuda-12.6")]), ours])
    asserts.equals(env, None, got.error)
    asserts.true(env, got.local)
    asserts.equals(env, "/opt/cuda-12.6", got.path)
    asserts.equals(env, ["cuda"], got.names)

    # Another module's tag creates its name, but does not choose the toolkit.
    got = rules_cuda_tags([_rc_module("app", True), _rc_module("lib", False, local_toolchain = [struct(name = "lib_cuda", toolkit_path = "/x")])])
    asserts.equals(env, None, got.error)
    asserts.false(env, got.local)
    asserts.equals(env, "", got.path)
    asserts.equals(env, ["lib_cuda"], got.names)

    # Errors: rules_cuda's redistributable toolkits, two paths, a tag naming nothing.
    got = rules_cuda_tags([_rc_module("app", True, toolkit = [_rc_toolkit(name = "cuda", version = "12.6.3", components_mapping = {"cuda_nvcc": "@cuda_nvcc"})])])
    _contains_all(env, got.error, ["cuda.toolkit(name = \"cuda\", version = \"12.6.3\"", "the MODULE.bazel of app", "cuda.redist(version = \"12.6.3\"", "--@rules_cuda_stages//cuda_rules:toolkit=12.6 "])
    got = rules_cuda_tags([_rc_module("app", True, redist_json = [struct(name = "redist", version = "12.6.3", urls = ["https://x/redistrib_12.6.3.json"], sha256 = "", components = ["cuda_nvcc"], integrity = "", platforms = [])])])
    _contains_all(env, got.error, ["cuda.redist_json(name = \"redist\", version = \"12.6.3\"", "cuda.redist(version = \"12.6.3\""])
    got = rules_cuda_tags([_rc_module("app", True, component = [struct(name = "cuda_nvcc", component_name = "nvcc", version = "12.6.85", descriptive_name = "", integrity = "", sha256 = "", strip_prefix = "", url = "", urls = [])])])
    _contains_all(env, got.error, ["cuda.component(name = \"cuda_nvcc\"", "cuda.redist(version ="])
    got = rules_cuda_tags([_rc_module("app", True, toolkit = [_rc_toolkit(name = "cuda", toolkit_path = "/a")], local_toolchain = [struct(name = "local_cuda", toolkit_path = "/b")])])
    _contains_all(env, got.error, ["names two installed toolkits", "toolkit_path = \"/a\"", "toolkit_path = \"/b\""])
    got = rules_cuda_tags([_rc_module("app", True, toolkit = [_rc_toolkit()])])
    _contains_all(env, got.error, ["cuda.toolkit() in the MODULE.bazel of app names no toolkit", "`version`", "`name`"])
    return unittest.end(env)

rules_cuda_tags_test = unittest.make(_rules_cuda_tags_test_impl)

def _no_toolkit_message_test_impl(ctx):
    env = unittest.begin(ctx)
    message = no_toolkit_message("//pkg:k", "//platforms:linux_ppc64le")
    _contains_all(env, message, [
        "//pkg:k: no CUDA toolkit for the target platform //platforms:linux_ppc64le",
        "13.0: aarch64 (@cuda_13_0_aarch64), x86_64 (@cuda_13_0_x86_64)",
        "--extra_execution_platforms",
    ])
    return unittest.end(env)

no_toolkit_message_test = unittest.make(_no_toolkit_message_test_impl)

def toolkit_test_suite(name):
    """Unit tests of the toolkit tables, redistrib manifests, the extension's tags and the host compiler check.

    Args:
      name: the test_suite's name.
    """
    unittest.suite(
        name,
        table_test,
        debs_table_test,
        unknown_version_test,
        missing_platform_test,
        redist_test,
        tags_test,
        rules_cuda_tags_test,
        libraries_test,
        host_compiler_test,
        no_toolkit_message_test,
    )
