"""Tables of data written as JSON-compatible Starlark, the way the lock generators check them in.

render() writes a value (dicts with sorted keys, lists, strings, numbers,
booleans) in buildifier's layout; read() reads `NAME = {...}` back from such
a file. Used by tools/cuda_wheels/lock.py and tools/cuda_debs/lock.py.
"""

import json
import re


def render(value, indent=0):
    """`value` as a Starlark literal in buildifier's layout (one item a line, trailing commas, sorted keys)."""
    pad = " " * (indent + 4)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = "".join("%s%s: %s,\n" % (pad, json.dumps(k), render(value[k], indent + 4)) for k in sorted(value))
        return "{\n" + items + " " * indent + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        items = "".join("%s%s,\n" % (pad, render(v, indent + 4)) for v in value)
        return "[\n" + items + " " * indent + "]"
    return json.dumps(value)


def read(text, name):
    """The dict assigned to `name` (`NAME = {` ... `\\n}`) in `text`, a file render() wrote (comment lines allowed)."""
    body = text.split(name + " = ", 1)[1]
    body = body[: body.index("\n}\n") + 2]
    body = "\n".join(line for line in body.splitlines() if not line.strip().startswith("#"))
    # JSON plus trailing commas.
    return json.loads(re.sub(r",(\s*[}\]])", r"\1", body))
