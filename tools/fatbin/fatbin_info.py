"""Prints the device images (cubins, PTX) embedded in CUDA objects or fatbinaries."""

import sys

from absl import app

from tools.fatbin import fatbin_lib


def main(argv):
    if len(argv) < 2:
        raise app.UsageError("usage: fatbin_info FILE...")
    status = 0
    for path in argv[1:]:
        try:
            with open(path, "rb") as f:
                images = fatbin_lib.read_images(f.read())
        except (OSError, fatbin_lib.FatbinError) as e:
            print("%s: error: %s" % (path, e), file=sys.stderr)
            status = 1
            continue
        print("%s: %s" % (path, " ".join("%s(%s)" % (i.name, i.kind) for i in images)))
    return status


if __name__ == "__main__":
    app.run(main)
