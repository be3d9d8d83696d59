"""cicc_split's two commands against what cicc builds inside itself for the same nvcc command.

testdata/cicc_internal_argv.txt holds, per CUDA version and case, nvcc's cicc
arguments and the argv cicc built for its front end (lgenfe) and the options
it gave libnvvm, read from the running process. The front end here must get
the same options, and libnvvm the same; what cicc does with them (the same
stub, IR and PTX as one cicc process) is checked by the fidelity tests.
"""

import os
import unittest

from tools.nvcc_plan import cicc_split

_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata", "cicc_internal_argv.txt")


def _cases():
    with open(_DATA) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            version, case, arch, cicc, lgenfe, libnvvm = [p.strip() for p in line.split(" | ")]
            yield version, case, arch, cicc[len("cicc: "):].split(), lgenfe[len("lgenfe: "):].split(), libnvvm[len("libnvvm: "):].split()


def _until_arch(tokens, arch_flag):
    """The tokens up to and including the arch (`--nv_arch X` or `-arch=X`): a capture may repeat after it."""
    if arch_flag == "--nv_arch":
        i = tokens.index("--nv_arch")
        return tokens[: i + 2]
    i = next(i for i, t in enumerate(tokens) if t.startswith("-arch="))
    return tokens[: i + 1]


class CiccSplitTest(unittest.TestCase):
    def test_every_recorded_case(self):
        checked = 0
        for version, case, arch, args, lgenfe, libnvvm in _cases():
            with self.subTest(version=version, case=case, arch=arch):
                argv = ["cicc"] + args
                if "-g" in args:
                    # Device debug: 12.4's and 13.0's PTX from the two phases differ from one cicc's.
                    with self.assertRaises(cicc_split.Unsplit):
                        cicc_split.split(argv, version, "libdevice.10.bc", "t/ir.bc")
                    continue
                front, back = cicc_split.split(argv, version, "libdevice.10.bc", "t/ir.bc")
                out = args[args.index("-o") + 1]
                source = [a for a in args if a.endswith(".ii")][0]
                self.assertEqual(front[:3], ["cicc", "-lgenfe", "--emit-llvm-bc"])
                self.assertEqual(front[-3:], [source, "-o", "t/ir.bc"])
                self.assertEqual(front[3:-3], _until_arch(lgenfe[2:], "--nv_arch"))
                options = back[2:]
                if "-lto" in args:
                    self.assertEqual(options[-3:], ["t/ir.bc", "-o", out + ".unused"])
                else:
                    self.assertEqual(options[:2], ["-nvvmir-library", "libdevice.10.bc"])
                    self.assertEqual(options[-3:], ["t/ir.bc", "-o", out])
                    options = options[2:]
                self.assertEqual(options[:-3], _until_arch(libnvvm, "-arch"))
                checked += 1
        self.assertGreaterEqual(checked, 24)

    def test_unknown_arguments_and_versions_keep_one_cicc(self):
        argv = ["cicc", "--c++17", "-arch", "compute_90", "k.cpp1.ii", "-o", "k.ptx"]
        self.assertEqual(cicc_split.split(argv, "13.0", "l.bc", "i.bc")[1][-1], "k.ptx")
        with self.assertRaises(cicc_split.Unsplit):
            cicc_split.split(argv[:1] + ["--some-new-option"] + argv[1:], "13.0", "l.bc", "i.bc")
        with self.assertRaises(cicc_split.Unsplit):
            cicc_split.split(argv, "12.8", "l.bc", "i.bc")
        with self.assertRaises(cicc_split.Unsplit):
            cicc_split.split(argv[:-2], "13.0", "l.bc", "i.bc")

    def test_split_compile_goes_to_libnvvm(self):
        argv = ["cicc", "--c++17", "-arch", "compute_90", "-split-compile", "4", "k.cpp1.ii", "-o", "k.ptx"]
        for version in ("12.4", "13.0"):
            front, back = cicc_split.split(argv, version, "l.bc", "i.bc")
            self.assertNotIn("-split-compile", " ".join(front))
            self.assertIn("-split-compile=4", back)
        # 13.5's one cicc with -split-compile is not its libnvvm alone with it.
        with self.assertRaises(cicc_split.Unsplit):
            cicc_split.split(argv, "13.5", "l.bc", "i.bc")
        self.assertEqual(cicc_split.split(argv[:4] + argv[6:], "13.5", "l.bc", "i.bc")[1][-1], "k.ptx")

    def test_version_from_the_preprocess(self):
        self.assertEqual(cicc_split.version_of(["gcc", "-D__CUDACC_VER_MAJOR__=13", "-D__CUDACC_VER_MINOR__=0", "-E"]), "13.0")
        self.assertIsNone(cicc_split.version_of(["gcc", "-E"]))


if __name__ == "__main__":
    unittest.main()
