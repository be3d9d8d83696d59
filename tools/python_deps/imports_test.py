"""The helper tools' pinned packages import, work, and are the pinned versions."""

import importlib.metadata
import json
import os
import sys
import unittest

from absl import flags
from google.protobuf import descriptor_pb2
from runfiles import runfiles

FLAGS = flags.FlagValues()
flags.DEFINE_integer("jobs", 1, "a flag", flag_values=FLAGS)


class ImportsTest(unittest.TestCase):
    def setUp(self):
        self.runfiles = runfiles.Create()
        self.assertIsNotNone(self.runfiles, "bazel-runfiles found no runfiles")

    def test_versions_are_the_pinned_ones(self):
        lock_path = self.runfiles.Rlocation("rules_cuda_stages/tools/python_deps/requirements_lock.json")
        self.assertTrue(lock_path and os.path.exists(lock_path), lock_path)
        with open(lock_path) as f:
            pinned = {p["name"]: p["version"] for p in json.load(f)["packages"]}
        self.assertEqual(set(pinned), {"absl-py", "protobuf", "bazel-runfiles"})
        for name, version in pinned.items():
            self.assertEqual(importlib.metadata.version(name), version, name)

    def test_absl_flags_parse(self):
        FLAGS(["prog", "--jobs=16"])
        self.assertEqual(FLAGS.jobs, 16)

    def test_protobuf_round_trip(self):
        proto = descriptor_pb2.FileDescriptorProto(name="spawn.proto", package="tools.protos")
        proto.message_type.add(name="SpawnExec").field.add(
            name="walltime_ms", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_INT64
        )
        parsed = descriptor_pb2.FileDescriptorProto.FromString(proto.SerializeToString())
        self.assertEqual(parsed.message_type[0].field[0].name, "walltime_ms")

    def test_packages_come_from_the_wheel_repository(self):
        import absl
        import google.protobuf

        for module in (absl, google.protobuf):
            self.assertIn("rules_cuda_stages_pypi", module.__file__)
        self.assertNotIn("dist-packages", absl.__file__, sys.path)


if __name__ == "__main__":
    unittest.main()
