"""The hermetic toolkit offers every header a local toolkit of the same version has.

Compares the include directory of the hermetic toolkit (--hermetic) with the
local toolkit's (--local, @cuda_local): every local header must be in the
hermetic toolkit, or belong to a library that @cuda//:<library> provides (its
own repository; components.bzl's `headers` prefixes). Skipped, saying so,
when this machine has no local toolkit or one of another version.
"""

import json
import re

from absl import flags
from absl.testing import absltest

import headers_lib

FLAGS = flags.FLAGS
flags.DEFINE_string("hermetic_version", None, "The hermetic toolkit's CUDA version.")
flags.DEFINE_string("local_version_file", None, "@cuda_local's version.bzl.")
flags.DEFINE_string("hermetic_list", None, "File listing the hermetic toolkit's headers, one path a line.")
flags.DEFINE_string("local_list", None, "File listing the local toolkit's headers, one path a line.")
flags.DEFINE_string("library_prefixes", None, "JSON {component: [header name prefixes]}.")


def _paths(list_file):
    with open(list_file) as f:
        return [r for r in (headers_lib.relative(line.strip(), "include") for line in f) if r]


class ToolkitHeadersTest(absltest.TestCase):
    def test_hermetic_has_every_local_header(self):
        with open(FLAGS.local_version_file) as f:
            match = re.search(r"CUDA_VERSION = '?\"?([0-9.]+)", f.read())
        local_version = match.group(1) if match else None
        if local_version is None:
            self.skipTest("no local CUDA toolkit on this machine")
        if local_version != FLAGS.hermetic_version:
            self.skipTest("the local toolkit is CUDA %s, the hermetic one %s" % (local_version, FLAGS.hermetic_version))
        hermetic = _paths(FLAGS.hermetic_list)
        local = _paths(FLAGS.local_list)
        self.assertNotEmpty(hermetic)
        self.assertNotEmpty(local)
        missing, by_library = headers_lib.missing_from_hermetic(local, hermetic, json.loads(FLAGS.library_prefixes))
        owners = {}
        for header, component in by_library.items():
            owners.setdefault(component, []).append(header)
        print("CUDA %s: the local toolkit has %d headers, the hermetic toolkit %d; %d local ones come with libraries: %s" % (
            local_version, len(local), len(hermetic), len(by_library),
            "; ".join("@cuda//:%s %d" % (c, len(h)) for c, h in sorted(owners.items())) or "none"))
        self.assertEqual([], missing, "headers of the local toolkit that the hermetic toolkit lacks")


class PublicHeadersTest(absltest.TestCase):
    def test_selection(self):
        headers, left = headers_lib.public_headers([
            "cuda_runtime.h", "cuda_runtime_api.h", "cuda_fp16.hpp", "crt/host_config.h", "cudaGL.h", "cublas.h", "device_functions.h",
            "cooperative_groups/reduce.h", "cooperative_groups/details/helpers.h",
            "nvtx3/nvToolsExt.h", "nvtx3/nvToolsExtOpenCL.h", "nvtx3/nvtxDetail/nvtxImpl.h",
            "cccl/cuda/std/atomic", "cccl/cuda/std/__atomic/api.h", "cccl/cub/cub.cuh", "cccl/cub/block/block_reduce.cuh",
        ], read=lambda p: {
            "cudaGL.h": "#include <GL/gl.h>\n",
            "nvtx3/nvToolsExtOpenCL.h": "  # include <CL/cl.h>\n",
            "device_functions.h": "#warning \"device_functions.h is an internal header file and must not be used directly.\"\n",
            "cuda_runtime.h": "#pragma once\n#include \"cuda_runtime_api.h\"\n",
        }.get(p, "#pragma once\n"))
        self.assertEqual(headers, ["cccl/cub/cub.cuh", "cccl/cuda/std/atomic", "cooperative_groups/reduce.h", "cuda_runtime.h", "nvtx3/nvToolsExt.h"])
        self.assertEqual(left, {
            "cublas.h": headers_lib.EXCLUSIVE["cublas.h"],
            "cudaGL.h": "needs GL/gl.h",
            "cuda_runtime_api.h": "reached through cuda_runtime.h",
            "device_functions.h": "internal: NVIDIA's #warning says not to include it directly",
            "nvtx3/nvToolsExtOpenCL.h": "needs CL/cl.h",
        })
        self.assertEqual(headers_lib.include_name("cccl/cuda/std/atomic"), "cuda/std/atomic")

    def test_missing(self):
        missing, by_library = headers_lib.missing_from_hermetic(
            ["cuda.h", "cupti.h", "cublas_v2.h", "cuda_profiler_api.h"], ["cuda.h"],
            {"cublas": ["cublas"], "cupti": ["cupti"]})
        self.assertEqual(missing, ["cuda_profiler_api.h"])
        self.assertEqual(by_library, {"cublas_v2.h": "cublas", "cupti.h": "cupti"})


if __name__ == "__main__":
    absltest.main()
