"""Which compiler made the host objects of a cuda_library (their .comment section): clang's under --//tests/host_clang:clang, gcc's without."""

import re

from absl import flags
from absl.testing import absltest
from runfiles import runfiles

FLAGS = flags.FLAGS
flags.DEFINE_enum("expect", None, ["clang", "gcc"], "The compiler that must have made every object.")
flags.DEFINE_string("objects", None, "Runfiles paths of the objects (space-separated).")

_IDENT = {"clang": "clang version", "gcc": "GCC: ("}


def _idents(path):
    with open(runfiles.Create().Rlocation(path), "rb") as f:
        data = f.read()
    return {m.decode() for m in re.findall(rb"(?:clang version|GCC: \()[ -~]*", data)}


class HostCompilerTest(absltest.TestCase):
    def test_every_object_is_the_expected_compilers(self):
        paths = FLAGS.objects.split()
        self.assertNotEmpty(paths)
        other = [c for c in _IDENT if c != FLAGS.expect][0]
        for path in paths:
            idents = _idents(path)
            self.assertTrue(any(_IDENT[FLAGS.expect] in i for i in idents), (path, idents))
            self.assertFalse(any(_IDENT[other] in i for i in idents), (path, idents))


if __name__ == "__main__":
    absltest.main()
