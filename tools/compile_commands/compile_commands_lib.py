"""compile_commands.json for a Bazel workspace: every CUDA source of cuda_library / cuda_objects (.cu and C++ files) and every other C/C++ source.

Read from `bazel aquery` (no build): for a .cu file, the nvcc command its
CudaPlan action plans from (staged) or its CudaCompile action runs
(staged = False), or, compiled by clang (compiler=clang), the clang driver
call its CudaPlan action plans from; for a C++ file, its CppCompile action's command. Paths are
made usable from the workspace: the workspace's own files stay relative to it
(the entries' directory), generated files and other repositories' files become
absolute paths under Bazel's execution root and output base, and the
/proc/self/cwd spelling of the stages becomes the same.

Entries for .cu files hold either the nvcc command (format "nvcc") or the same
compile as flags clang's CUDA mode takes (format "clang", the default: what
clangd understands): the archs, the dialect, include paths, defines and the
host compiler's sysroot; nvcc-only options (optimization, -Xptxas, ...) are
left out, as they do not change how the source parses.
"""

import json
import os
import re
import shlex

from tools.nvcc_plan import stages

CUDA_MNEMONICS = (stages.PLAN_MNEMONIC, stages.UNSTAGED_MNEMONIC)
CPP_MNEMONIC = "CppCompile"

_CANONICAL = "/proc/self/cwd"


class Error(Exception):
    """Something the tool cannot turn into entries (names the action)."""


class Paths:
    """Execroot-relative paths, as entries whose directory is the workspace spell them."""

    def __init__(self, workspace, execution_root, output_base):
        self.workspace = workspace
        self.execution_root = execution_root
        self.output_base = output_base

    def __call__(self, path):
        if path == _CANONICAL:
            path = "."
        elif path.startswith(_CANONICAL + "/"):
            path = path[len(_CANONICAL) + 1 :]
        if os.path.isabs(path):
            return path
        if path.startswith("bazel-out/"):
            return os.path.join(self.execution_root, path)
        if path.startswith("external/"):
            return os.path.join(self.output_base, path)
        return path

    def source(self, path):
        """A source file: the workspace's own (also through a local_path_override repository) relative to it."""
        fixed = self(path)
        if os.path.isabs(fixed):
            real = os.path.realpath(fixed)
            root = os.path.realpath(self.workspace)
            if real.startswith(root + os.sep):
                return os.path.relpath(real, root)
        return fixed


# Flags whose next argument is a path, and joined forms (-Ipath, --sysroot=path).
_PATH_PAIRS = ("-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros", "-isysroot", "--sysroot", "-o",
               "-c", "-MF", "--options-file", "-B", "-ccbin")
_PATH_PREFIXES = ("-I", "-B", "--sysroot=", "-fmodule-map-file=", "--cuda-path=")


def fix_paths(argv, paths):
    """argv with every path argument passed through `paths`."""
    out = []
    expect_path = False
    for arg in argv:
        if expect_path:
            out.append(paths(arg))
            expect_path = False
            continue
        if arg in _PATH_PAIRS:
            out.append(arg)
            expect_path = True
            continue
        for prefix in _PATH_PREFIXES:
            if arg.startswith(prefix) and len(arg) > len(prefix):
                arg = prefix + paths(arg[len(prefix) :])
                break
        else:
            if arg.startswith(("bazel-out/", "external/", _CANONICAL + "/")):
                arg = paths(arg)
        out.append(arg)
    return out


def expand_params(arguments, param_files):
    """The command line with every @file argument replaced by that params file's arguments."""
    out = []
    for arg in arguments:
        if arg.startswith("@") and arg[1:] in param_files:
            out.extend(param_files[arg[1:]])
        else:
            out.append(arg)
    return out


def nvcc_command(mnemonic, argv):
    """(nvcc, nvcc arguments) of a CudaPlan (compile) or CudaCompile action's command line; None for other CudaPlans."""
    if mnemonic == stages.UNSTAGED_MNEMONIC:
        return argv[0], argv[1:]
    if "compile" not in argv[:2] or "--" not in argv:
        return None  # a device link's plan
    nvcc = [a[len("--nvcc=") :] for a in argv[: argv.index("--")] if a.startswith("--nvcc=")]
    if len(nvcc) != 1:
        raise Error("a CudaPlan command without --nvcc=: %s" % " ".join(argv[:8]))
    return nvcc[0], argv[argv.index("--") + 1 :]


def clang_command(argv):
    """(clang, clang's driver arguments) of a CudaPlan clang_compile action's command line (compiler=clang); else None."""
    if "clang_compile" not in argv[:2] or "--" not in argv:
        return None
    clang = [a[len("--clang=") :] for a in argv[: argv.index("--")] if a.startswith("--clang=")]
    if len(clang) != 1:
        raise Error("a CudaPlan clang_compile command without --clang=: %s" % " ".join(argv[:8]))
    return clang[0], argv[argv.index("--") + 1 :]


def split_xcompiler(value):
    """The host compiler flags of one -Xcompiler value: split at unescaped commas, then as /bin/sh would."""
    parts = re.split(r"(?<!\\),", value)
    out = []
    for part in parts:
        out.extend(shlex.split(part.replace("\\,", ",")))
    return out


# nvcc options whose value is the next argument (when not joined with =).
_NVCC_VALUE = {"-ccbin", "-o", "-c", "-I", "-isystem", "-D", "-U", "-include", "-Xcompiler", "-Xptxas", "-Xnvlink",
               "-gencode", "-arch", "-code", "--options-file", "-maxrregcount", "-t", "-std", "-x", "-L", "-l",
               "-odir", "-MF", "-MT", "--compiler-options", "--ptxas-options", "--generate-code"}

# Host compiler flags (from -Xcompiler) that change how a source parses, which clang takes.
_HOST_PAIRS = ("-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros", "-D", "-U", "--sysroot", "-isysroot")
_HOST_PREFIXES = ("-D", "-U", "-I", "--sysroot=", "-std=", "-stdlib=", "--gcc-toolchain=", "--target=")


def parse_nvcc(args):
    """struct-like dict of what a compile's nvcc arguments say: source, output, archs, std, rdc, flags clang takes."""
    out = {"src": None, "obj": None, "archs": [], "std": None, "rdc": False, "ccbin": None, "flags": []}
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, joined = arg.partition("=")
        value = joined if eq else (args[i + 1] if i + 1 < len(args) and arg in _NVCC_VALUE else None)
        step = 1 if eq or arg not in _NVCC_VALUE else 2
        if arg.startswith("-I") and arg != "-I":
            out["flags"].append(arg)
        elif arg.startswith(("-D", "-U")) and len(arg) > 2:
            out["flags"].append(arg)
        elif name in ("-I", "-isystem", "-include", "-D", "-U"):
            out["flags"] += [name, value]
        elif name == "-c":
            out["src"] = value
        elif name == "-o":
            out["obj"] = value
        elif name == "-ccbin":
            out["ccbin"] = value
        elif name in ("-std", "--std"):
            out["std"] = value
        elif name in ("-rdc", "--relocatable-device-code"):
            out["rdc"] = value == "true"
        elif name in ("-gencode", "--generate-code"):
            m = re.search(r"arch=compute_([0-9]+[a-z]?)", value or "")
            if m:
                out["archs"].append("sm_" + m.group(1))
        elif name in ("-Xcompiler", "--compiler-options"):
            host = split_xcompiler(value or "")
            j = 0
            while j < len(host):
                flag = host[j]
                if flag in _HOST_PAIRS and j + 1 < len(host):
                    out["flags"] += [flag, host[j + 1]]
                    j += 2
                    continue
                if flag.startswith(_HOST_PREFIXES):
                    if flag.startswith("-std="):
                        if "gnu++" in flag:
                            out["gnu"] = True
                    else:
                        out["flags"].append(flag)
                j += 1
        i += step
    return out


def clang_arguments(parsed, toolkit_root, sysroot=None, compiler="clang++", implicit=(), shims=None):
    """The compile as clang's CUDA mode takes it, host side (what clangd shows).

    Args:
      parsed: from parse_nvcc, paths already fixed.
      toolkit_root: the toolkit's directory (--cuda-path).
      sysroot: the host compiler's implicit sysroot, or None.
      compiler: argv[0].
      implicit: the include flags nvcc adds itself (its INCLUDES and SYSTEM_INCLUDES), paths fixed.
      shims: a directory of empty headers clang's CUDA wrapper includes and the toolkit lacks, or None.

    Returns:
      list of string.
    """
    std = parsed["std"] or "c++17"
    if parsed.get("gnu"):
        std = std.replace("c++", "gnu++")
    argv = [compiler, "-x", "cuda", "--cuda-host-only", "--cuda-path=" + toolkit_root, "--no-cuda-version-check",
            "-nocudalib", "-std=" + std]
    # One GPU arch is enough to parse device code.
    argv += ["--cuda-gpu-arch=" + a for a in parsed["archs"][:1]]
    if parsed["rdc"]:
        argv.append("-fgpu-rdc")
    if sysroot and not any(f.startswith("--sysroot") for f in parsed["flags"]):
        argv.append("--sysroot=" + sysroot)
    argv += parsed["flags"]
    argv += list(implicit)
    if shims:
        argv += ["-idirafter", shims]
    argv += ["-c", parsed["src"]]
    if parsed["obj"]:
        argv += ["-o", parsed["obj"]]
    return argv


def implicit_includes(plan_env):
    """The include flags nvcc adds to every host compiler command, from its dryrun's environment lines."""
    out = []
    for name in ("INCLUDES", "SYSTEM_INCLUDES"):
        value = plan_env.get(name, "")
        out += shlex.split(value)
    # -I<dir> / -isystem <dir>, each path normalized (nvcc spells them <root>/bin/..//include).
    fixed = []
    pending = False
    for arg in out:
        if pending:
            fixed.append(os.path.normpath(arg))
            pending = False
        elif arg in ("-I", "-isystem"):
            fixed.append(arg)
            pending = True
        elif arg.startswith("-I"):
            fixed.append("-I" + os.path.normpath(arg[2:]))
        else:
            fixed.append(arg)
    return fixed


# gcc options clang's driver rejects (clangd reports them as errors); C++ entries in the clang
# format leave them out.
GCC_ONLY = ("-fno-canonical-system-headers",)


# Make-style dependency output (-MD -MF bazel-out/.../x.d): an editor's parse must not write
# into Bazel's output tree, whose directories may not exist yet.
_DEPFILE_FLAGS = ("-MD", "-MMD", "-MP")
_DEPFILE_PAIRS = ("-MF", "-MT", "-MQ")


def drop_depfile_flags(argv):
    """argv without the flags that write a dependency file."""
    out = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in _DEPFILE_PAIRS:
            skip = True
        elif arg not in _DEPFILE_FLAGS and not arg.startswith(_DEPFILE_PAIRS):
            out.append(arg)
    return out


def _cpp_source(argv):
    if "-c" in argv and argv.index("-c") + 1 < len(argv):
        return argv[argv.index("-c") + 1]
    return None


def _tool_configurations(aquery):
    return {c["id"] for c in aquery.get("configuration", []) if c.get("isTool")}


def _generated_in_external_repository(src):
    """A source that a rule of an external repository generates (bazel-out/<cfg>/bin/external/...).

    No editor opens one, and without a build (this tool only queries) it does
    not exist: the toolkit's driver and NVML link stubs (stub.c) are such.
    """
    parts = src.split("/")
    return len(parts) > 4 and parts[0] == "bazel-out" and parts[2] == "bin" and parts[3] == "external"


def entries(aquery, paths, fmt="clang", sysroot_of=lambda compiler: None, toolkit_of=lambda nvcc: ((), None)):
    """compile_commands.json entries from `bazel aquery --output=jsonproto --include_param_files` output.

    Args:
      aquery: the parsed JSON.
      paths: a Paths.
      fmt: "clang" (flags clangd understands) or "nvcc" (the nvcc command) for .cu sources.
      sysroot_of: compiler path -> the sysroot it uses implicitly (its -print-sysroot), or None;
        given to clang for .cu sources and to C++ commands that name none.
      toolkit_of: nvcc path (as the action names it) -> (nvcc's implicit include flags, the shim
        directory or None), for the clang format.

    Returns:
      A list of {"directory", "file", "arguments", "output"}, one per source (the first action of
      each: the non-relocatable compile of a cuda_objects source), sorted by file.
    """
    out = {}
    tools = _tool_configurations(aquery)
    for action in aquery.get("actions", []):
        mnemonic = action.get("mnemonic")
        if mnemonic not in CUDA_MNEMONICS + (CPP_MNEMONIC,):
            continue
        if action.get("configurationId") in tools:
            continue  # built for the exec platform (a tool), not what an editor shows
        params = {p["execPath"]: p.get("arguments", []) for p in action.get("paramFiles", [])}
        argv = expand_params(action.get("arguments", []), params)
        if mnemonic == CPP_MNEMONIC:
            src = _cpp_source(argv)
            if not src or _generated_in_external_repository(src):
                continue
            args = drop_depfile_flags(fix_paths(argv, paths))
            if fmt == "clang":
                args = [a for a in args if a not in GCC_ONLY]
            if not any(a.startswith("--sysroot") for a in args):
                sysroot = sysroot_of(argv[0])
                if sysroot:
                    args.insert(1, "--sysroot=" + sysroot)
            obj = args[args.index("-o") + 1] if "-o" in args[:-1] else None
        elif clang_command(argv):
            # Compiled by clang (compiler=clang): the driver call CudaPlan plans is itself
            # clang's CUDA compile, what clangd reads, in either format.
            clang, clang_args = clang_command(argv)
            args = drop_depfile_flags(fix_paths([clang] + clang_args, paths))
            if not any(a.startswith("--sysroot") for a in args):
                # A wrapper that adds --sysroot (tools/bazelw's clang): clangd does not run it.
                sysroot = sysroot_of(clang)
                if sysroot:
                    args.insert(1, "--sysroot=" + sysroot)
            src = args[args.index("-c") + 1] if "-c" in args[:-1] else None
            if not src:
                raise Error("a clang_compile action without -c SOURCE: %s" % " ".join(argv[:8]))
            src = [a for a in clang_args if paths(a) == src][0]
            obj = args[args.index("-o") + 1] if "-o" in args[:-1] else None
        else:
            found = nvcc_command(mnemonic, argv)
            if not found:
                continue
            nvcc, nvcc_args = found
            parsed = parse_nvcc(nvcc_args)
            src = parsed["src"]
            if not src:
                raise Error("a %s action without -c SOURCE: %s" % (mnemonic, " ".join(argv[:8])))
            if fmt == "nvcc":
                args = fix_paths([nvcc] + nvcc_args, paths)
            else:
                toolkit = paths(os.path.dirname(os.path.dirname(nvcc)))
                fixed = dict(parsed, flags=fix_paths(parsed["flags"], paths), src=paths(src),
                             obj=paths(parsed["obj"]) if parsed["obj"] else None)
                implicit, shims = toolkit_of(nvcc)
                args = clang_arguments(fixed, toolkit, sysroot=sysroot_of(parsed["ccbin"]) if parsed["ccbin"] else None,
                                       implicit=fix_paths(list(implicit), paths), shims=shims)
            obj = args[args.index("-o") + 1] if "-o" in args[:-1] else None
        file = paths.source(src)
        if file in out:
            continue
        # The source as the entry names it (workspace-relative where it is the workspace's).
        args = [file if a == paths(src) else a for a in args]
        out[file] = {"directory": paths.workspace, "file": file, "arguments": args}
        if obj:
            out[file]["output"] = obj
    return [out[f] for f in sorted(out)]


def to_json(entries_list):
    return json.dumps(entries_list, indent=1, sort_keys=True) + "\n"


def aquery_expression(patterns):
    """The aquery expression of every compile action in the patterns' dependencies."""
    if not patterns:
        patterns = ["//..."]
    return 'mnemonic("%s", deps(%s))' % ("|".join(CUDA_MNEMONICS + (CPP_MNEMONIC,)), " + ".join(patterns))
