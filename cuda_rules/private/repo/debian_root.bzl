"""A directory unpacked from Debian packages, made to stand alone (a sysroot, a toolchain's root).

Debian's packages hold absolute symbolic links (/lib64/ld-linux-x86-64.so.2 ->
/lib/x86_64-linux-gnu/ld-2.31.so, libm.so -> /lib/x86_64-linux-gnu/libm.so.6),
which Bazel's extraction rewrites to this output base's absolute path: they would
name the build machine's files or one output base. They become relative, inside
the directory. Links that name a file of no unpacked package are deleted (a
glob would take them as inputs that do not exist). The C library's linker scripts
(libc.so, libm.so, libpthread.so) name absolute paths, which ld reads inside the
sysroot only when it finds the script there, and a sandbox's copy of the script
is a link to elsewhere: `=` says "in the sysroot" explicitly.
"""

visibility(["//cuda_rules/...", "//tests/..."])

_RELINK = """
set -e
here="$(pwd)"
real="$(pwd -P)"
find . -type l | while read -r link; do
  target="$(readlink "$link")"
  case "$target" in
    "$here"/*) target="${target#"$here"}" ;;
    "$real"/*) target="${target#"$real"}" ;;
  esac
  case "$target" in
    /*)
      dir="$(dirname "${link#./}")"
      up="$(echo "$dir" | sed -e 's|[^/][^/]*|..|g')"
      ln -sfn "$up$target" "$link"
      ;;
  esac
done
find . -type l ! -exec test -e {} \\; -exec rm -f {} +
for f in usr/lib/*/*.so; do
  if [ -f "$f" ] && [ ! -L "$f" ] && head -c 200 "$f" | grep -q "GNU ld script"; then
    sed -i -e '/^GROUP/s| /| =/|g' -e '/^INPUT/s| /| =/|g' "$f"
  fi
done
"""

def make_root_standalone(rctx, directory, what):
    """Makes `directory` (repository-relative) stand alone: relative links, no dangling ones, ld scripts in the sysroot.

    Args:
      rctx: the repository_ctx.
      directory: the unpacked root, relative to the repository.
      what: what it is, for the error message.
    """
    result = rctx.execute(["/bin/sh", "-c", _RELINK], working_directory = directory)
    if result.return_code != 0:
        fail("rules_cuda_stages: {}: making the unpacked packages' symbolic links relative failed: {}".format(what, result.stderr))
