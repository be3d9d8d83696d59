"""Writes execlog_pb2.py from execlog.proto, as protoc's Python generator does, without protoc.

  gen_execlog_pb2.py execlog.proto OUT

execlog.proto is a subset of Bazel's spawn.proto: proto3 messages (nested
ones too) of scalar and message fields, some repeated, and imports of
well-known types. For that subset this writes what `protoc --python_out`
(protobuf 7.35.1, the gencode version pinned below) writes: the file's
serialized FileDescriptorProto and the builder calls around it, byte for byte,
so the generated module is regenerated and checked like every generated file
(dev/BUILD.bazel: `bazel run //dev:update`, //dev:update_test) with no
compiler to fetch. Anything outside the subset (enums, options, oneofs, maps)
fails here, naming it.
"""

import os
import re
import sys

# The protobuf release whose gencode this writes (the runtime checks it is not newer than itself).
GENCODE_VERSION = (7, 35, 1)

_SCALARS = {
    "double": 1, "float": 2, "int64": 3, "uint64": 4, "int32": 5, "fixed64": 6, "fixed32": 7, "bool": 8,
    "string": 9, "bytes": 12, "uint32": 13, "sfixed32": 15, "sfixed64": 16, "sint32": 17, "sint64": 18,
}
_TYPE_MESSAGE = 11
_LABEL_OPTIONAL = 1
_LABEL_REPEATED = 3

_TOKEN = re.compile(r'\s*(?:(//[^\n]*)|("[^"]*")|([A-Za-z_][A-Za-z0-9_.]*)|([0-9]+)|(\S))')


class ProtoError(ValueError):
    """The .proto file uses something outside the subset this generator writes."""


def _tokens(text):
    pos = 0
    out = []
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
        comment, string, word, number, other = m.groups()
        if comment is not None:
            continue
        out.append(string or word or number or other)
    return out


class _Parser:
    def __init__(self, text):
        self.tokens = _tokens(text)
        self.i = 0

    def peek(self):
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, expected=None):
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise ProtoError("expected %r, found %r" % (expected, token))
        self.i += 1
        return token

    def file(self):
        out = {"package": "", "imports": [], "messages": [], "syntax": ""}
        while self.peek() is not None:
            word = self.take()
            if word == "syntax":
                self.take("=")
                out["syntax"] = self.take().strip('"')
                self.take(";")
            elif word == "package":
                out["package"] = self.take()
                self.take(";")
            elif word == "import":
                out["imports"].append(self.take().strip('"'))
                self.take(";")
            elif word == "message":
                out["messages"].append(self.message())
            else:
                raise ProtoError("%r at the top level is not supported" % word)
        return out

    def message(self):
        msg = {"name": self.take(), "fields": [], "nested": []}
        self.take("{")
        while self.peek() != "}":
            if self.peek() == "message":
                self.take()
                msg["nested"].append(self.message())
                continue
            label = _LABEL_OPTIONAL
            if self.peek() == "repeated":
                self.take()
                label = _LABEL_REPEATED
            type_name, name = self.take(), self.take()
            self.take("=")
            number = int(self.take())
            self.take(";")
            if type_name in ("enum", "oneof", "map", "option", "reserved", "optional"):
                raise ProtoError("%r is not supported" % type_name)
            msg["fields"].append({"name": name, "type": type_name, "number": number, "label": label})
        self.take("}")
        return msg


def _varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _bytes_field(number, data):
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _varint_field(number, value):
    return _varint(number << 3) + _varint(value)


def _defined(messages, prefix):
    for m in messages:
        yield prefix + m["name"]
        yield from _defined(m["nested"], prefix + m["name"] + ".")


def _resolve(type_name, scope, package, defined):
    """The fully qualified name (".pkg.Outer.Inner") of a message type used in `scope` (["Outer", ...])."""
    for k in range(len(scope), -1, -1):
        candidate = ".".join(([package] if package else []) + scope[:k] + [type_name])
        if candidate in defined:
            return "." + candidate
    if "." in type_name:  # a fully qualified type of an imported file (google.protobuf.Duration)
        return "." + type_name
    raise ProtoError("unknown type %r in %s" % (type_name, ".".join(scope)))


def _message_bytes(msg, scope, package, defined, spans, base):
    """DescriptorProto of `msg`; records (qualified name, start, end) of it and its nested ones, offset by `base`."""
    scope = scope + [msg["name"]]
    out = _bytes_field(1, msg["name"].encode())
    for f in msg["fields"]:
        field = _bytes_field(1, f["name"].encode()) + _varint_field(3, f["number"]) + _varint_field(4, f["label"])
        if f["type"] in _SCALARS:
            field += _varint_field(5, _SCALARS[f["type"]])
        else:
            field += _varint_field(5, _TYPE_MESSAGE) + _bytes_field(6, _resolve(f["type"], scope[:-1] + [msg["name"]], package, defined).encode())
        out += _bytes_field(2, field)
    index = len(spans)
    spans.append(None)
    for nested in msg["nested"]:
        # The nested message starts after its tag and length, at its offset in `out`.
        inner_spans = []
        inner = _message_bytes(nested, scope, package, defined, inner_spans, 0)
        header = _varint(3 << 3 | 2) + _varint(len(inner))
        start = base + len(out) + len(header)
        spans.extend((name, s + start, e + start) for name, s, e in inner_spans)
        out += header + inner
    spans[index] = ("_".join(scope).upper(), base, base + len(out))
    return out


def descriptor(text, file_name):
    """(serialized FileDescriptorProto, [(name, start, end)] of every message in file order), and the imports."""
    proto = _Parser(text).file()
    if proto["syntax"] != "proto3":
        raise ProtoError("only proto3 files are supported")
    defined = set(_defined(proto["messages"], proto["package"] + "." if proto["package"] else ""))
    out = _bytes_field(1, file_name.encode())
    if proto["package"]:
        out += _bytes_field(2, proto["package"].encode())
    for dep in proto["imports"]:
        out += _bytes_field(3, dep.encode())
    spans = []
    for msg in proto["messages"]:
        message_spans = []
        body = _message_bytes(msg, [], proto["package"], defined, message_spans, 0)
        header = _varint(4 << 3 | 2) + _varint(len(body))
        start = len(out) + len(header)
        spans.extend((name, s + start, e + start) for name, s, e in message_spans)
        out += header + body
    out += _bytes_field(12, b"proto3")
    return out, spans, proto["imports"]


def _escape(data):
    """A Python bytes literal's body, as protoc writes it (absl's CHexEscape: no hex digit right after \\x..)."""
    out = []
    last_hex = False
    for b in data:
        c = chr(b)
        if c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif c in "\"'\\":
            out.append("\\" + c)
        elif b < 0x20 or b >= 0x7F or (last_hex and c in "0123456789abcdefABCDEF"):
            out.append("\\x%02x" % b)
            last_hex = True
            continue
        else:
            out.append(c)
        last_hex = False
    return "".join(out)


def _module_alias(proto_path):
    module = proto_path[: -len(".proto")].replace("/", ".") + "_pb2"
    return module, module.replace("_", "__").replace(".", "_dot_")


def render(text, file_name):
    """The text of <file>_pb2.py for the .proto file `text` named `file_name`."""
    data, spans, imports = descriptor(text, file_name)
    module = file_name[: -len(".proto")] + "_pb2"
    lines = [
        "# -*- coding: utf-8 -*-",
        "# Generated by the protocol buffer compiler.  DO NOT EDIT!",
        "# NO CHECKED-IN PROTOBUF GENCODE",
        "# source: %s" % file_name,
        "# Protobuf Python Version: %d.%d.%d" % GENCODE_VERSION,
        '"""Generated protocol buffer code."""',
        "from google.protobuf import descriptor as _descriptor",
        "from google.protobuf import descriptor_pool as _descriptor_pool",
        "from google.protobuf import runtime_version as _runtime_version",
        "from google.protobuf import symbol_database as _symbol_database",
        "from google.protobuf.internal import builder as _builder",
        "_runtime_version.ValidateProtobufRuntimeVersion(",
        "    _runtime_version.Domain.PUBLIC,",
        "    %d," % GENCODE_VERSION[0],
        "    %d," % GENCODE_VERSION[1],
        "    %d," % GENCODE_VERSION[2],
        "    '',",
        "    '%s'" % file_name,
        ")",
        "# @@protoc_insertion_point(imports)",
        "",
        "_sym_db = _symbol_database.Default()",
        "",
        "",
    ]
    for dep in imports:
        dep_module, alias = _module_alias(dep)
        package, _, name = dep_module.rpartition(".")
        lines.append("from %s import %s as %s" % (package, name, alias))
    lines += [
        "",
        "",
        "DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'%s')" % _escape(data),
        "",
        "_globals = globals()",
        "_builder.BuildMessageAndEnumDescriptors(DESCRIPTOR, _globals)",
        "_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, '%s', _globals)" % module,
        "if not _descriptor._USE_C_DESCRIPTORS:",
        "  DESCRIPTOR._loaded_options = None",
    ]
    for name, start, end in spans:
        lines.append("  _globals['_%s']._serialized_start=%d" % (name, start))
        lines.append("  _globals['_%s']._serialized_end=%d" % (name, end))
    lines.append("# @@protoc_insertion_point(module_scope)")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) != 3:
        raise SystemExit("usage: gen_execlog_pb2.py FILE.proto OUT")
    with open(argv[1]) as f:
        text = f.read()
    try:
        out = render(text, os.path.basename(argv[1]))
    except ProtoError as e:
        raise SystemExit("gen_execlog_pb2: %s: %s" % (argv[1], e))
    with open(argv[2], "w") as f:
        f.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
