"""The action hooks of the stage table: what a stage's action reads beyond what its record says.

A record names its hook (stages.py: `hook`); run_stage (actions/stage.bzl)
calls it with the unit and the instance and adds what it returns:
struct(inputs = [depset of File], progress = text appended to the progress
message, tool = a FilesToRunProvider the script runs as "$1", or None).
"""

load("//cuda_rules/private:stages.bzl", "LINK_INPUTS", "PTX_CHECK", "SPLICE_TOOL")

visibility(["//cuda_rules/..."])

def _link_inputs(unit, inst):
    """CudaDeviceLink of one real arch: every relocatable source's image for it, and the script that wraps each.

    Each linked source's plan/device_object.sh wraps its image as nvcc's
    objects carry it, so the action's key holds only this arch's device code;
    an LTO link (-dlto) also reads libNVVM.
    """
    direct = []
    for i in unit.link_inputs[inst["arch"]]:
        direct.append(i.image)
        if i.script:
            direct.append(i.script)
    return struct(
        inputs = [depset(direct)] + ([unit.cuda.lto_files] if unit.lto else []),
        progress = " (LTO)" if unit.lto else "",
        tool = None,
    )

def _splice_tool(unit, inst):  # buildifier: disable=unused-variable
    """CudaClangEmbed: the tool that fills the host object's empty .nv_fatbin section with the fatbinary.

    CudaClangHost compiled the host side against an empty fatbinary, so it
    waits for no device stage; the splice (tools/nvcc_plan/elf_splice.py)
    gives the object clang's own one-shot compile writes, byte for byte. For
    relocatable code the script also compiles, with the C++ toolchain's clang,
    the check symbol only a device link defines and joins it to the object.
    """
    return struct(inputs = [unit.cc_files] if unit.rdc else [], progress = "", tool = unit.splice_tool)

def _ptx_check(unit, inst):
    """CudaCicc of an arch whose PTX is embedded with no cubin of its own (code=compute_NN alone): ptxas.

    nvcc checks that PTX with `ptxas -arch=compute_NN` (writing nothing), and
    fails where ptxas refuses it (a warning under -Werror=all-warnings, an
    -Xptxas option it rejects); the stage's script runs the same check after
    cicc (tools/nvcc_plan/compile_scripts.py). Other archs' CudaCicc gets no
    ptxas: their cubins' CudaPtxas checks their PTX.
    """
    if inst["virtual"] not in unit.ptx_checked:
        return struct(inputs = [], progress = "", tool = None)
    return struct(inputs = [depset([unit.cuda.ptxas])], progress = " (and its ptxas check)", tool = None)

# Each hook of the stage table, by the name its records give.
HOOKS = {
    LINK_INPUTS: _link_inputs,
    PTX_CHECK: _ptx_check,
    SPLICE_TOOL: _splice_tool,
}
