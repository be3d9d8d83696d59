"""compile_commands_lib on aquery output shaped like Bazel's (CudaPlan with params files, CudaCompile, CppCompile)."""

import unittest

from tools.compile_commands import compile_commands_lib as lib

_NVCC = "external/_main~cuda~cuda_13_0/bin/nvcc"
_NVCC_ARGS = [
    "-ccbin", "/usr/bin/gcc",
    "-std=c++17",
    "-Xcompiler=-Wall",
    "-Xcompiler='-D__DATE__=\"redacted\"'",
    "-Xcompiler=-Wa\\,--noexecstack",
    "-Xcompiler=--sysroot=external/sysroot",
    "-gencode=arch=compute_80,code=[sm_80]",
    "-gencode=arch=compute_90,code=[sm_90,compute_90]",
    "-Xcompiler=-fPIC",
    "-O3",
    "-I", "bazel-out/k8-fastbuild/bin/external/_main~cuda~cuda_13_0",
    "-Xcompiler=-iquote,.",
    "-isystem", "external/_main~cuda~cuda_13_0/include",
    "-DFROM_DEFINES=1",
]


def _aquery():
    return {
        "configuration": [{"id": 1, "mnemonic": "k8-fastbuild"}, {"id": 2, "mnemonic": "k8-opt-exec", "isTool": True}],
        "actions": [
            {
                "mnemonic": "CudaPlan",
                "configurationId": 1,
                "arguments": ["bazel-out/k8-opt-exec/bin/tools/nvcc_plan/cuda_plan", "@p1", "@p2", "@p3"],
                "paramFiles": [
                    {"execPath": "p1", "arguments": ["compile", "--layout=x/layout.json", "--nvcc=" + _NVCC, "--"]},
                    {"execPath": "p2", "arguments": _NVCC_ARGS},
                    {"execPath": "p3", "arguments": ["-c", "pkg/k.cu", "-o", "bazel-out/k8-fastbuild/bin/pkg/_cuda/k/k/k.o"]},
                ],
            },
            {
                # The relocatable variant of the same source (cuda_objects): the first one wins.
                "mnemonic": "CudaPlan",
                "configurationId": 1,
                "arguments": ["planner", "compile", "--layout=y", "--nvcc=" + _NVCC, "--", "-rdc=true", "-c", "pkg/k.cu"],
            },
            {
                "mnemonic": "CudaPlan",
                "configurationId": 1,
                "arguments": ["planner", "device_link", "--layout=z", "--nvcc=" + _NVCC, "--", "-dlink"],
            },
            {
                # A source compiled by clang (compiler=clang): clang's own driver call.
                "mnemonic": "CudaPlan",
                "configurationId": 1,
                "arguments": ["planner", "@c1", "@c2", "@c3"],
                "paramFiles": [
                    {"execPath": "c1", "arguments": ["clang_compile", "--layout=c/layout.json", "--clang=/usr/bin/clang", "--"]},
                    {"execPath": "c2", "arguments": ["-x", "cuda", "--cuda-path=external/_main~cuda~cuda_12_4",
                                                     "--cuda-gpu-arch=sm_80", "-isystem", "external/_main~cuda~cuda_12_4/include"]},
                    {"execPath": "c3", "arguments": ["-c", "pkg/c.cu", "-o", "bazel-out/k8-fastbuild/bin/pkg/_cuda/c/c/c.o"]},
                ],
            },
            {
                "mnemonic": "CudaCompile",
                "configurationId": 1,
                "arguments": [_NVCC, "-ccbin", "/usr/bin/gcc", "-gencode=arch=compute_90,code=[sm_90]", "-rdc=true",
                              "-c", "external/other~/u.cu", "-o", "bazel-out/k8-fastbuild/bin/external/other~/u.o"],
            },
            {
                "mnemonic": "CppCompile",
                "configurationId": 1,
                "arguments": ["/usr/bin/gcc", "-fno-canonical-system-headers", "-MD", "-MF",
                              "bazel-out/k8-fastbuild/bin/pkg/_objs/helper.d", "-iquote", "bazel-out/k8-fastbuild/bin",
                              "-c", "pkg/helper.cc", "-o", "bazel-out/k8-fastbuild/bin/pkg/_objs/helper.o"],
            },
            {
                "mnemonic": "CppCompile",
                "configurationId": 2,
                "arguments": ["/usr/bin/gcc", "-c", "external/bazel_tools/tool.cc", "-o", "t.o"],
            },
            {
                # A source an external repository's rule generates (the driver's link stub): no entry.
                "mnemonic": "CppCompile",
                "configurationId": 1,
                "arguments": ["/usr/bin/gcc", "-c", "bazel-out/k8-fastbuild/bin/external/_main~cuda~cuda_13_0/_stubs/cuda_stub/stub.c",
                              "-o", "bazel-out/k8-fastbuild/bin/external/_main~cuda~cuda_13_0/_objs/stub.o"],
            },
        ],
    }


class CompileCommandsLibTest(unittest.TestCase):
    def setUp(self):
        self.paths = lib.Paths("/ws", "/ob/execroot/_main", "/ob")

    def test_paths(self):
        self.assertEqual(self.paths("pkg/k.cu"), "pkg/k.cu")
        self.assertEqual(self.paths("/proc/self/cwd/pkg/k.cu"), "pkg/k.cu")
        self.assertEqual(self.paths("/proc/self/cwd"), ".")
        self.assertEqual(self.paths("bazel-out/k8/bin/x"), "/ob/execroot/_main/bazel-out/k8/bin/x")
        self.assertEqual(self.paths("external/r/x.h"), "/ob/external/r/x.h")
        self.assertEqual(self.paths("/usr/include"), "/usr/include")

    def test_split_xcompiler(self):
        self.assertEqual(lib.split_xcompiler("-iquote,."), ["-iquote", "."])
        self.assertEqual(lib.split_xcompiler("-Wa\\,--noexecstack"), ["-Wa,--noexecstack"])
        self.assertEqual(lib.split_xcompiler("'-D__DATE__=\"redacted\"'"), ['-D__DATE__="redacted"'])

    def test_clang_entries(self):
        sysroots = {"/usr/bin/gcc": "/host", "/usr/bin/clang": "/clangroot"}
        found = lib.entries(_aquery(), self.paths, sysroot_of=sysroots.get,
                            toolkit_of=lambda nvcc: (["-isystem", "/ob/external/cuda/include/cccl"], "/shims"))
        self.assertEqual([e["file"] for e in found], ["/ob/external/other~/u.cu", "pkg/c.cu", "pkg/helper.cc", "pkg/k.cu"])
        by_file = {e["file"]: e for e in found}
        # Compiled by clang: its own driver call, paths made usable from the workspace.
        self.assertEqual(by_file["pkg/c.cu"]["arguments"], [
            "/usr/bin/clang", "--sysroot=/clangroot", "-x", "cuda", "--cuda-path=/ob/external/_main~cuda~cuda_12_4", "--cuda-gpu-arch=sm_80",
            "-isystem", "/ob/external/_main~cuda~cuda_12_4/include",
            "-c", "pkg/c.cu", "-o", "/ob/execroot/_main/bazel-out/k8-fastbuild/bin/pkg/_cuda/c/c/c.o",
        ])
        self.assertEqual(by_file["pkg/c.cu"]["output"], "/ob/execroot/_main/bazel-out/k8-fastbuild/bin/pkg/_cuda/c/c/c.o")
        k = by_file["pkg/k.cu"]
        self.assertEqual(k["directory"], "/ws")
        self.assertEqual(k["arguments"], [
            "clang++", "-x", "cuda", "--cuda-host-only", "--cuda-path=/ob/external/_main~cuda~cuda_13_0",
            "--no-cuda-version-check", "-nocudalib", "-std=c++17", "--cuda-gpu-arch=sm_80",
            '-D__DATE__="redacted"', "--sysroot=/ob/external/sysroot",
            "-I", "/ob/execroot/_main/bazel-out/k8-fastbuild/bin/external/_main~cuda~cuda_13_0",
            "-iquote", ".", "-isystem", "/ob/external/_main~cuda~cuda_13_0/include", "-DFROM_DEFINES=1",
            "-isystem", "/ob/external/cuda/include/cccl", "-idirafter", "/shims",
            "-c", "pkg/k.cu", "-o", "/ob/execroot/_main/bazel-out/k8-fastbuild/bin/pkg/_cuda/k/k/k.o",
        ])
        u = by_file["/ob/external/other~/u.cu"]["arguments"]
        self.assertIn("-fgpu-rdc", u)
        self.assertIn("--sysroot=/host", u)  # the host compiler's own, given to clang
        cc = by_file["pkg/helper.cc"]["arguments"]
        self.assertEqual(cc, ["/usr/bin/gcc", "--sysroot=/host", "-iquote", "/ob/execroot/_main/bazel-out/k8-fastbuild/bin",
                              "-c", "pkg/helper.cc", "-o", "/ob/execroot/_main/bazel-out/k8-fastbuild/bin/pkg/_objs/helper.o"])

    def test_nvcc_entries(self):
        found = lib.entries(_aquery(), self.paths, fmt="nvcc")
        k = [e for e in found if e["file"] == "pkg/k.cu"][0]["arguments"]
        self.assertEqual(k[0], "/ob/external/_main~cuda~cuda_13_0/bin/nvcc")
        self.assertEqual(k[1:7], _NVCC_ARGS[:6])
        self.assertEqual(k[-4:], ["-c", "pkg/k.cu", "-o", "/ob/execroot/_main/bazel-out/k8-fastbuild/bin/pkg/_cuda/k/k/k.o"])
        cc = [e for e in found if e["file"] == "pkg/helper.cc"][0]["arguments"]
        self.assertIn("-fno-canonical-system-headers", cc)  # the C++ command, but for its dependency file
        self.assertNotIn("-MD", cc)
        self.assertNotIn("-MF", cc)

    def test_drop_depfile_flags(self):
        self.assertEqual(lib.drop_depfile_flags(["cc", "-MD", "-MF", "a.d", "-MTx", "-MMD", "-MP", "-I", "i", "-c", "a.c"]),
                         ["cc", "-I", "i", "-c", "a.c"])

    def test_implicit_includes(self):
        env = {"INCLUDES": '"-I/tk/bin/..//include"  ', "SYSTEM_INCLUDES": '"-isystem" "/tk/bin/..//include/cccl"  '}
        self.assertEqual(lib.implicit_includes(env), ["-I/tk/include", "-isystem", "/tk/include/cccl"])

    def test_expression(self):
        self.assertEqual(lib.aquery_expression(["//a/...", "//b:c"]),
                         'mnemonic("CudaPlan|CudaCompile|CppCompile", deps(//a/... + //b:c))')


if __name__ == "__main__":
    unittest.main()
