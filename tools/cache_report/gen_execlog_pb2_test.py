"""gen_execlog_pb2.py: the descriptor it serializes is execlog.proto's, and what it cannot write fails.

(That its whole output is what protoc wrote for execlog.proto, byte for byte:
//dev:update_test, against the checked-in execlog_pb2.py.)
"""

import unittest

from google.protobuf import descriptor_pb2
from runfiles import runfiles

from tools.cache_report import execlog_pb2
from tools.cache_report import gen_execlog_pb2


class GenExeclogPb2Test(unittest.TestCase):
    def test_descriptor_is_the_protos(self):
        with open(runfiles.Create().Rlocation("rules_cuda_stages/tools/cache_report/execlog.proto")) as f:
            data, spans, imports = gen_execlog_pb2.descriptor(f.read(), "execlog.proto")
        proto = descriptor_pb2.FileDescriptorProto.FromString(data)
        self.assertEqual(proto.package, "rules_cuda_stages.execlog")
        self.assertEqual(list(proto.dependency), imports)
        spawn = [m for m in proto.message_type if m.name == "SpawnExec"][0]
        fields = {f.name: (f.number, f.label, f.type, f.type_name) for f in spawn.field}
        self.assertEqual(fields["listed_outputs"], (5, 3, 9, ""))
        self.assertEqual(fields["metrics"], (20, 1, 11, ".rules_cuda_stages.execlog.SpawnMetrics"))
        platform = [m for m in proto.message_type if m.name == "Platform"][0]
        self.assertEqual(platform.field[0].type_name, ".rules_cuda_stages.execlog.Platform.Property")
        # The spans name each message's own bytes in the serialized file.
        for name, start, end in spans:
            message = descriptor_pb2.DescriptorProto.FromString(data[start:end])
            self.assertEqual(message.name.upper(), name.split("_")[-1], name)
        # The module the runtime built from the checked-in file has the same messages.
        self.assertEqual(sorted(execlog_pb2.DESCRIPTOR.message_types_by_name), sorted(m.name for m in proto.message_type))

    def test_unsupported_constructs_fail(self):
        for text in (
            'syntax = "proto3"; enum E { A = 0; }',
            'syntax = "proto2"; message M { int32 a = 1; }',
            'syntax = "proto3"; message M { Unknown a = 1; }',
            'syntax = "proto3"; message M { map<string, string> a = 1; }',
        ):
            with self.assertRaises(gen_execlog_pb2.ProtoError, msg=text):
                gen_execlog_pb2.render(text, "x.proto")


if __name__ == "__main__":
    unittest.main()
