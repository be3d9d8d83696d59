"""Writes a Bazel workspace that builds NVIDIA's cuda-samples with rules_cuda_stages, as a user would.

    python3 bench/cuda_samples/make_workspace.py --samples=<a checkout of NVIDIA/cuda-samples> --out=DIR
    cd DIR && tools/bazelw build -k --@rules_cuda_stages//cuda_rules:toolkit=12.4 \
        --@rules_cuda_stages//cuda_rules:host_toolchain=gcc10 --@rules_cuda_stages//cuda_rules:archs=sm_80,sm_90 //...

One package per sample directory of --list (bench/compile_bench/cuda_samples.txt: 28
files of the samples at c94ff366): a `cuda_binary` of its .cu and .cpp files (as with
rules_cuda, a .cpp among a CUDA rule's srcs compiles as CUDA), with its headers and the
samples' Common/ headers (`//Common:helpers`), under the sample's own name. The sources are copied (only .cu, .cpp, .h, .cuh, .hpp files), so DIR stands alone;
MODULE.bazel depends on this checkout of rules_cuda_stages (local_path_override); on a
machine without Bazel, DIR gets a copy of tools/bazelw and tools/offline/, as
docs/bazelw.md ("Other workspaces") says a consumer does.

The samples' CMake files build for their own arch lists; pass the archs on the command line
(archs=sm_80,sm_90: the WMMA GEMMs need sm_72 or sm_80 and later).
"""

import argparse
import os
import shutil
import sys

SOURCE_SUFFIXES = (".cu", ".cpp", ".h", ".cuh", ".hpp")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_LIST = os.path.join(REPO, "bench", "compile_bench", "cuda_samples.txt")


def sample_dirs(list_path):
    """The sample directories (relative to the samples' root) of a sources list, in order, once each."""
    dirs = []
    with open(list_path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            d = os.path.dirname(line.split()[0])
            if d not in dirs:
                dirs.append(d)
    return dirs


def _sources(directory):
    return sorted(n for n in os.listdir(directory) if n.endswith(SOURCE_SUFFIXES) and os.path.isfile(os.path.join(directory, n)))


def _list(names):
    return "[" + ", ".join('"%s"' % n for n in names) + "]"


def sample_build(name, files):
    """BUILD.bazel text of one sample: a cuda_binary of its sources, named after the sample."""
    srcs = [f for f in files if f.endswith((".cu", ".cpp"))]
    hdrs = [f for f in files if not f.endswith((".cu", ".cpp"))]
    return """load("@rules_cuda_stages//cuda_rules:defs.bzl", "cuda_binary")

cuda_binary(
    name = "{name}",
    srcs = {srcs},
    hdrs = {hdrs},
    deps = ["//Common:helpers"],
)
""".format(name=name, srcs=_list(srcs), hdrs=_list(hdrs))


COMMON_BUILD = """load("@rules_cc//cc:cc_library.bzl", "cc_library")

# The samples' helper headers (helper_cuda.h, helper_string.h, ...): `#include <helper_cuda.h>`.
cc_library(
    name = "helpers",
    hdrs = glob(["*.h", "*.hpp", "*.cuh"]),
    includes = ["."],
    deps = ["@cuda//:cuda_runtime"],
    visibility = ["//visibility:public"],
)
"""

MODULE = """module(name = "cuda_samples_with_rules_cuda_stages")

bazel_dep(name = "rules_cuda_stages", version = "0.0.0")
bazel_dep(name = "rules_cc", version = "0.0.17")

cuda = use_extension("@rules_cuda_stages//cuda_rules:extensions.bzl", "cuda")
use_repo(cuda, "cuda")

local_path_override(
    module_name = "rules_cuda_stages",
    path = "{repo}",
)
"""

BAZELRC = """common --enable_bzlmod
# --config=offline, added by tools/bazelw on machines without Bazel.
import %workspace%/tools/offline/offline.bazelrc
"""


def make_workspace(samples, out, dirs, repo=REPO):
    """Writes the workspace; returns the sample packages written."""
    if not os.path.isdir(os.path.join(samples, "Common")):
        raise SystemExit("error: %s has no Common/: pass --samples=<a checkout of NVIDIA/cuda-samples>" % samples)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "MODULE.bazel"), "w") as f:
        f.write(MODULE.format(repo=repo))
    with open(os.path.join(out, ".bazelrc"), "w") as f:
        f.write(BAZELRC.format(repo=repo))
    open(os.path.join(out, "BUILD.bazel"), "w").close()
    with open(os.path.join(out, ".bazelignore"), "w") as f:
        f.write("tools/offline/modules\n")
    tools = os.path.join(out, "tools")
    if os.path.isdir(tools):
        shutil.rmtree(tools)
    shutil.copytree(os.path.join(repo, "tools", "offline"), os.path.join(tools, "offline"), symlinks=True)
    shutil.copy2(os.path.join(repo, "tools", "bazelw"), os.path.join(tools, "bazelw"))
    packages = []
    for d in ["Common"] + dirs:
        src = os.path.join(samples, d)
        if not os.path.isdir(src):
            raise SystemExit("error: %s: no such sample directory in %s" % (d, samples))
        dst = os.path.join(out, d)
        if os.path.isdir(dst):
            shutil.rmtree(dst)
        os.makedirs(dst)
        files = _sources(src)
        for name in files:
            shutil.copyfile(os.path.join(src, name), os.path.join(dst, name))
        with open(os.path.join(dst, "BUILD.bazel"), "w") as f:
            f.write(COMMON_BUILD if d == "Common" else sample_build(os.path.basename(d), files))
        if d != "Common":
            packages.append("//%s:%s" % (d, os.path.basename(d)))
    return packages


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", required=True, help="a checkout of NVIDIA/cuda-samples")
    parser.add_argument("--out", required=True, help="the workspace to write (its sample packages are replaced)")
    parser.add_argument("--list", default=DEFAULT_LIST, help="the sources list whose directories to take")
    args = parser.parse_args(argv)
    for label in make_workspace(os.path.abspath(args.samples), os.path.abspath(args.out), sample_dirs(args.list)):
        print(label)


if __name__ == "__main__":
    main(sys.argv[1:])
