"""Turns nvcc's plan for a device link into one shell script per stage.

Run by the CudaPlan action of cuda_device_link (and so of cuda_binary and
cuda_test). It runs `nvcc --dryrun -dlink [-dlto]` with the link's archs and
writes:
  - per real arch, the CudaDeviceLink script: nvcc's nvlink command for that
    arch, reading one object per relocatable source made from that arch's code
    alone (each source's plan/device_object.sh wraps it as nvcc's object
    carries it), so the action's key holds only that arch's device code;
  - the CudaFatbinary script: nvcc's fatbinary over the linked cubins;
  - the CudaLinkStub script: nvcc's compile of crt/link.stub, which embeds
    that fatbinary and registers every linked module.

When nvlink fails, its messages name the linked sources by target and file,
with a hint for the two usual causes (a device symbol defined twice; one
defined in code that is not relocatable).

Usage:
  plan_device_link --layout LAYOUT.json --nvcc PATH -- NVCC_ARGS...
"""

import shlex

from absl import app

from tools.nvcc_plan import nvcc_plan_lib
from tools.nvcc_plan import plan_stages

# Flags: --layout (the link's inputs and every stage's outputs) and --nvcc,
# as plan_stages defines them.

_DUPLICATE_HINT = (
    "a __device__ function or variable is defined in more than one of the sources above. "
    "Fix: define it in one .cu file and declare it `extern` elsewhere, or make the other definitions static or inline."
)


def _undefined_hint(non_rdc):
    if non_rdc:
        return (
            "a device symbol is used but no relocatable source defines it. These cuda_library targets in the "
            "link's dependencies are not relocatable, so their device code cannot be linked against: %s. "
            "Fix: set rdc = True on the target that defines it, or add the rdc library that does to deps."
            % ", ".join(non_rdc)
        )
    return (
        "a device symbol is used but no linked source defines it. "
        "Fix: add the cuda_library (rdc = True) that defines it to deps."
    )


def build_scripts(plan, layout):
    """Returns {script path: content} for every stage of a device link plan."""
    label = layout["label"]
    files = layout["files"]
    scripts = layout["scripts"]
    archs = layout["archs"]
    inputs = layout["inputs"]

    def fail(message):
        raise plan_stages.LayoutError("rules_cuda_stages: %s: %s" % (label, message))

    other = [s for s in plan.stages if s.kind not in ("nvlink", "fatbinary", "link_stub", "cleanup")]
    if other:
        fail("nvcc's device link plan runs %s, which these rules do not expect" % ", ".join(s.tool for s in other))
    nvlinks = {}
    for s in plan.by_kind("nvlink"):
        nvlinks[s.arch] = s
    if sorted(nvlinks) != sorted(archs):
        fail("nvcc plans device links for %s, the rule declared %s" % (sorted(nvlinks), sorted(archs)))
    fatbinaries = plan.by_kind("fatbinary")
    stubs = plan.by_kind("link_stub")
    if len(fatbinaries) != 1 or len(stubs) != 1:
        fail("expected one fatbinary and one link stub compile in nvcc's device link plan")
    fatbinary, stub = fatbinaries[0], stubs[0]

    reg_c = nvcc_plan_lib.value_after(nvlinks[archs[0]].argv, "--register-link-binaries")
    renames = {reg_c: files["reg_c/" + archs[-1]]}
    for arch, s in nvlinks.items():
        renames[s.outputs[0]] = files["cubin/" + arch]
    renames[fatbinary.outputs[0]] = files["fatbin_c"]
    renames[stub.outputs[0]] = files["obj"]
    ordered = sorted((k for k in renames if k), key=len, reverse=True)

    env = plan.env_dict()
    toolkit_root = layout["toolkit_root"]

    def rewrite(token, extra=None):
        table = dict(renames, **(extra or {}))
        for old in sorted(table, key=len, reverse=True):
            if old in token:
                token = token.replace(old, table[old])
        return plan_stages._rewrite_toolkit(token, env, toolkit_root)

    env_exports = [
        ("PWD", "/proc/self/cwd"),
        ("PATH", '"%s/nvvm/bin:%s/bin:$PATH"' % (toolkit_root, toolkit_root)),
    ]
    tools = {
        "nvlink": toolkit_root + "/bin/nvlink",
        "fatbinary": toolkit_root + "/bin/fatbinary",
    }
    placeholders = layout["placeholders"]
    out = {}
    for arch in archs:
        s = nvlinks[arch]
        argv = [rewrite(a, {reg_c: files["reg_c/" + arch]}) for a in s.argv]
        argv[0] = tools["nvlink"]
        # The placeholder objects nvcc was planned with become this arch's
        # wrapped objects, made in a temporary directory.
        first = argv.index(placeholders[0])
        argv = [a for a in argv if a not in placeholders]
        wrapped = ['"$tmp/%d.o"' % i for i in range(len(inputs[arch]))]
        lines = [
            "#!/bin/sh",
            "# rules_cuda_stages: CudaDeviceLink %s of %s, from nvcc's plan." % (arch, label),
        ]
        for name, value in env_exports:
            lines.append("%s=%s; export %s" % (name, value, name))
        lines += [
            'tmp="$(mktemp -d)"',
            "trap 'rm -rf \"$tmp\"' EXIT",
        ]
        names = []
        for i, entry in enumerate(inputs[arch]):
            names.append(entry["name"])
            if entry["kind"] == "object":
                lines.append('cp %s "$tmp/%d.o"' % (shlex.quote(entry["image"]), i))
            else:
                lines.append(
                    "/bin/sh %s %s %s %s \"$tmp/%d.o\" || exit 1"
                    % (shlex.quote(entry["script"]), entry["kind"], arch[len("sm_"):], shlex.quote(entry["image"]), i)
                )
        command = " ".join(shlex.quote(a) for a in argv[:first]) + " " + " ".join(wrapped) + " " + " ".join(
            shlex.quote(a) for a in argv[first:]
        )
        lines += [
            command + ' 2>"$tmp/err"',
            "rc=$?",
            # nvlink names its inputs by file: name them by target and source.
            'sed -e "%s" "$tmp/err" >&2'
            % "; ".join('s|$tmp/%d\\.o|%s|g' % (i, _sed_replacement(n)) for i, n in enumerate(names)),
            "if [ $rc -ne 0 ]; then",
            '  if grep -q "Multiple definition" "$tmp/err"; then echo %s >&2; fi'
            % shlex.quote("rules_cuda_stages: %s (CudaDeviceLink %s): %s" % (label, arch, _DUPLICATE_HINT)),
            '  if grep -q "Undefined reference" "$tmp/err"; then echo %s >&2; fi'
            % shlex.quote("rules_cuda_stages: %s (CudaDeviceLink %s): %s" % (label, arch, _undefined_hint(layout["non_rdc"]))),
            "fi",
            "exit $rc",
        ]
        out[scripts["nvlink/" + arch]] = "\n".join(lines) + "\n"

    fb = [rewrite(a) for a in fatbinary.argv]
    fb[0] = tools["fatbinary"]
    fb.append("--create=" + files["fatbin"])
    out[scripts["fatbinary"]] = plan_stages._script(label, "the device link", "CudaFatbinary", "", env_exports, fb, False)

    hc = [rewrite(a) for a in stub.argv]
    hc[0] = plan_stages._normpath(hc[0])
    out[scripts["link_stub"]] = plan_stages._script(label, "the device link", "CudaLinkStub", "", env_exports, hc, True)
    return out


def _sed_replacement(text):
    return text.replace("\\", "\\\\").replace("&", "\\&").replace("|", "\\|").replace('"', '\\"').replace("$", "\\$")


def main(argv):
    return plan_stages.plan_and_write(argv, lambda plan, layout, nvcc_args: build_scripts(plan, layout))

if __name__ == "__main__":
    app.run(main)
