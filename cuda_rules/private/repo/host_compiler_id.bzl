"""host_compiler_id_repository: which C++ compiler the machine has, as a file in the host stages' keys.

The C++ toolchain Bazel configures from the machine (@local_config_cc) names its
compiler by path, and only the list of its include directories is an input of
the actions that run it: two machines with different compilers at one path
and with one include list (gcc 12.2 and 12.4, or two C libraries) would share
keys for outputs that differ (docs/toolkits.md, "The hermetic host compiler").
This repository finds the compiler the same way Bazel's autoconfiguration does
($CC, else gcc on PATH; a clang's path resolved) and writes `id.txt`: its path, `--version`, and every
macro it predefines with libstdc++'s and the C library's version headers
included (`__VERSION__`, `__GLIBC_MINOR__`, `__GLIBCXX__`, ...). The CUDA
toolchain adds the file to the inputs of every stage that runs the host
compiler when the build's C++ toolchain runs that same path
(compile/target.bzl's toolchains()), so a different compiler, C library or
libstdc++ there is a different key. The repository is fetched again when $CC
or PATH change, and when the compiler's programs or those headers change
(repository_ctx.watch).
"""

# Includes the C library's and libstdc++'s configuration headers (features.h,
# bits/c++config.h), whose macros say their versions.
_PROBE = "#include <cstddef>\n#include <climits>\n"

def _find_compiler(rctx):
    """The compiler's path as Bazel's C++ autoconfiguration (unix_cc_configure.bzl's find_cc) writes it, or None.

    $CC (an absolute path as given, else looked up on PATH), else gcc on PATH;
    a clang with its symbolic links resolved.
    """
    cc = rctx.os.environ.get("CC", "").strip() or "gcc"
    if cc.startswith("/"):
        if not rctx.path(cc).exists:
            return None
    else:
        found = rctx.which(cc)
        if found == None:
            return None
        cc = str(found)
    if "clang" in rctx.execute([cc, "-v"]).stderr:
        resolved = rctx.execute(["readlink", "-f", cc])
        if resolved.return_code == 0:
            cc = resolved.stdout.strip()
    return cc

def _watch(rctx, path):
    if hasattr(rctx, "watch") and path and rctx.path(path).exists:
        rctx.watch(path)

def _host_compiler_id_impl(rctx):
    compiler = _find_compiler(rctx)
    lines = []
    if compiler != None:
        rctx.file("probe.cc", _PROBE)
        version = rctx.execute([compiler, "--version"])
        macros = rctx.execute([compiler, "-xc++", "-E", "-dM", "probe.cc"])
        if version.return_code == 0 and macros.return_code == 0:
            lines = ["compiler: " + compiler, version.stdout.strip(), "macros:"] + sorted(macros.stdout.strip().splitlines())

            # Fetched again when the compiler's programs or the version headers change.
            _watch(rctx, compiler)
            for program in ("cc1plus", "cc1"):
                found = rctx.execute([compiler, "-print-prog-name=" + program])
                if found.return_code == 0 and found.stdout.strip().startswith("/"):
                    _watch(rctx, found.stdout.strip())
            headers = rctx.execute([compiler, "-xc++", "-E", "probe.cc"])
            seen = {}
            for line in headers.stdout.splitlines():
                if line.startswith("# ") and '"/' in line:
                    header = line.split('"')[1]
                    if header not in seen:
                        seen[header] = True
                        _watch(rctx, header)
        else:
            compiler = None
    rctx.delete("probe.cc")
    if compiler == None:
        lines = ["compiler: none found (CC={})".format(rctx.os.environ.get("CC", "unset"))]
    rctx.file("id.txt", "\n".join(lines) + "\n")
    rctx.file("defs.bzl", "# The compiler id.txt describes ({}).\nCOMPILER = {}\n".format(
        "rules_cuda_stages: cuda_rules/private/repo/host_compiler_id.bzl",
        repr(compiler or ""),
    ))
    rctx.file("BUILD.bazel", 'exports_files(["defs.bzl", "id.txt"], visibility = ["//visibility:public"])\n')

host_compiler_id_repository = repository_rule(
    implementation = _host_compiler_id_impl,
    doc = "The machine's C++ compiler (as Bazel's autoconfiguration finds it): its path, version and predefined macros.",
    environ = ["CC", "PATH"],
    configure = True,
    local = True,
)
