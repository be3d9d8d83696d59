"""The stage scripts of a device link, from nvcc's plan of `nvcc -dlink [-dlto]`.

  - per real arch, the CudaDeviceLink script: nvcc's nvlink command for that
    arch, reading one object per relocatable source made from that arch's code
    alone (each source's plan/device_object.sh wraps it as nvcc's object
    carries it), so the action's key holds only that arch's device code, and
    always with `-report-arch` (with_report_arch), so it is the same action
    whatever other archs the link has;
  - the CudaFatbinary script: nvcc's fatbinary over the linked cubins;
  - the CudaLinkStub script: nvcc's compile of crt/link.stub, which embeds
    that fatbinary and registers every linked module.

When nvlink fails, its messages name the linked sources by target and file,
with a hint for the two usual causes (a device symbol defined twice; one
defined in code that is not relocatable).
"""

import shlex

from tools.nvcc_plan import dryrun
from tools.nvcc_plan import scripts as scripts_lib
from tools.nvcc_plan import stage_graph
from tools.nvcc_plan import stages

KEYS = stages.KEYS


DUPLICATE_HINT = (
    "a __device__ function or variable is defined in more than one of the sources above. "
    "Fix: define it in one .cu file and declare it `extern` elsewhere, or make the other definitions static or inline."
)


def undefined_hint(non_rdc):
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


def markers_header(layout):
    """What the link stub defines for each relocatable source it links (docs/cuda_library.md, "Link errors").

    A source's object needs the first symbol (hidden): a link with no device
    link of it fails with "undefined reference to `rules_cuda_stages__no_device_link_for__...`".
    The second is defined once per device link: two device links of one
    source in one link fail with "multiple definition of `...__device_linked_twice__...`".
    """
    lines = [
        "/* rules_cuda_stages: the relocatable sources %s links. */" % layout.label,
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
    ]
    for missing, twice in layout.markers:
        lines.append('__attribute__((weak, visibility("hidden"))) char %s;' % missing)
        lines.append('__attribute__((visibility("hidden"))) char %s;' % twice)
    lines += ["#ifdef __cplusplus", "}", "#endif"]
    return "\n".join(lines) + "\n"


REPORT_ARCH = "-report-arch"


def with_report_arch(argv):
    """nvlink's command with `-report-arch`, where nvcc puts it, whatever the link's arch set.

    nvcc passes nvlink `-report-arch` (name the arch in its messages) only when
    it links more than one arch, and nvlink records its options in the cubin
    (.note.nv.tkinfo), so nvcc's sm_90 cubin of a one-arch link differs from
    the sm_90 cubin of a multi-arch link. Every CudaDeviceLink passes it: the
    action of one arch is the same whatever else the build links, and its cubin
    is byte for byte the one nvcc links for that arch among others (nvlink
    records its options in a canonical order, so the position does not show).
    The option changes nothing but nvlink's messages and that record.
    """
    argv = [a for a in argv if a != REPORT_ARCH]
    anchor = [i for i, a in enumerate(argv) if a.startswith("-cpu-arch")]
    at = anchor[0] + 1 if anchor else 1
    return argv[:at] + [REPORT_ARCH] + argv[at:]


def for_link(plan, layout):
    """Returns {path: content} for every stage script of a device link plan (a LinkLayout), and its markers header."""
    units = {s: stage_graph.instances(s, [], layout.archs) for s in stages.LINK_STAGES}
    unit = scripts_lib.Unit.of(plan, layout, units, "These rules expect nvcc -dlink to run nvlink, fatbinary and a compile of its link stub.")
    out = {layout.files[KEYS.markers]: markers_header(layout)}
    for action in unit.graph["actions"]:
        out.update(PLANNER[action["stage"]](unit, action))
    return out


def _device_link(unit, action):
    """CudaDeviceLink of one arch: nvcc's nvlink command over the arch's wrapped objects, naming targets in errors."""
    layout = unit.layout
    arch = action["inst"]["arch"]
    command = unit.command_of(stages.DEVICE_LINK, action["inst"])
    # nvcc names every arch's registration code alike: this arch's own file.
    reg_c = dryrun.value_after(command.argv, "--register-link-binaries")
    argv = with_report_arch(unit.command(command, {reg_c: layout.files[stage_graph.instance_key(KEYS.reg_c, action["inst"])]}))
    # The placeholder object nvcc was planned with becomes this arch's
    # wrapped objects, made in a temporary directory.
    first = argv.index(stages.DEVICE_LINK_PLACEHOLDER)
    argv = [a for a in argv if a != stages.DEVICE_LINK_PLACEHOLDER]
    inputs = layout.inputs[arch]
    wrapped = ['"$tmp/%d.o"' % i for i in range(len(inputs))]
    lines = scripts_lib.preamble("%s %s of %s, from nvcc's plan." % (stages.DEVICE_LINK.mnemonic, arch, layout.label), unit.exports)
    lines += scripts_lib.temp_dir_lines()
    for i, entry in enumerate(inputs):
        if entry.code == "object":
            lines.append('cp %s "$tmp/%d.o"' % (shlex.quote(entry.image), i))
        else:
            lines.append(
                "/bin/sh %s %s %s %s \"$tmp/%d.o\" || exit 1"
                % (shlex.quote(entry.script), entry.code, arch[len("sm_"):], shlex.quote(entry.image), i)
            )
    command_line = " ".join(shlex.quote(a) for a in argv[:first]) + " " + " ".join(wrapped) + " " + " ".join(
        shlex.quote(a) for a in argv[first:]
    )
    lines += [
        command_line + ' 2>"$tmp/err"',
        "rc=$?",
        # nvlink names its inputs by file: name them by target and source.
        'sed -e "%s" "$tmp/err" >&2'
        % "; ".join('s|$tmp/%d\\.o|%s|g' % (i, scripts_lib.sed_replacement(e.name)) for i, e in enumerate(inputs)),
        "if [ $rc -ne 0 ]; then",
        '  if grep -q "Multiple definition" "$tmp/err"; then echo %s >&2; fi'
        % shlex.quote("rules_cuda_stages: %s (CudaDeviceLink %s): %s" % (layout.label, arch, DUPLICATE_HINT)),
        '  if grep -q "Undefined reference" "$tmp/err"; then echo %s >&2; fi'
        % shlex.quote("rules_cuda_stages: %s (CudaDeviceLink %s): %s" % (layout.label, arch, undefined_hint(layout.non_rdc))),
        "fi",
        "exit $rc",
    ]
    return {layout.scripts[action["script"]]: "\n".join(lines) + "\n"}


def _fatbinary(unit, action):
    """fatbinary over the linked cubins, also writing the fatbinary itself."""
    return unit.script(action, unit.command(unit.only(stages.LINK_FATBINARY)) + ["--create=" + unit.layout.files[KEYS.fatbin]])


def _link_stub(unit, action):
    """crt/link.stub's compile, with the markers of every linked source."""
    argv = unit.command(unit.only(stages.LINK_STUB))
    argv[-3:-3] = ["-include", unit.layout.files[KEYS.markers]]  # before `SOURCE -o OUT`
    return unit.script(action, argv)


# Every stage's script (each is more than its step's command as it is).
PLANNER = {
    stages.DEVICE_LINK: _device_link,
    stages.LINK_FATBINARY: _fatbinary,
    stages.LINK_STUB: _link_stub,
}
