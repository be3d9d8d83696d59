"""A unit of staged work: one source compiled in stages, or one device link. Its files declared, and its record.

The stage table applied to the unit (stage_graph.bzl, generated from
tools/nvcc_plan/stage_graph.py, the same code the planner and the runner run)
gives its actions and every file's path; declare_unit declares them, and
source_unit / link_unit make the record CudaPlan's action (actions/plan.bzl)
and every stage's action (actions/stage.bzl) read.
"""

load(":stages.bzl", "LAYOUT")

visibility(["//cuda_rules/...", "//tests/..."])

def declare_unit(actions, base, graph):
    """Declares every file of a unit's graph under `base`, and its layout.

    Args:
      actions: ctx.actions.
      base: the unit's directory relative to the package, ending in "/".
      graph: stage_graph.unit_graph's result for the unit.

    Returns:
      struct(files = {output key: File}, scripts = {script key: File}, layout = File,
      directory = the unit's directory, execroot-relative).
    """
    layout = actions.declare_file(base + LAYOUT)
    return struct(
        files = {key: actions.declare_file(base + path) for key, path in graph["files"].items()},
        scripts = {key: actions.declare_file(base + path) for key, path in graph["scripts"].items()},
        layout = layout,
        directory = layout.path[:-len("/" + LAYOUT)],
    )

def _unit(*, table, graph, declared, cuda, cc_files, nvcc_inputs, src, headers, rdc, splice_tool, link_inputs, lto, split_compile = 1, ptx_checked = []):
    return struct(
        table = table,
        actions = graph["actions"],
        files = declared.files,
        scripts = declared.scripts,
        layout = declared.layout,
        plan_outputs = declared.scripts.values() + [declared.files[o.key] for o in table.plan_outputs],
        cuda = cuda,
        cc_files = cc_files,
        nvcc_inputs = nvcc_inputs,
        src = src,
        headers = headers,
        rdc = rdc,
        splice_tool = splice_tool,
        link_inputs = link_inputs,
        lto = lto,
        split_compile = split_compile,
        ptx_checked = ptx_checked,
    )

def source_unit(*, table, graph, declared, cuda, cc_files, nvcc_inputs, src, headers, rdc, splice_tool, split_compile, ptx_checked = []):
    """One source compiled in stages (compile/source_in_stages.bzl).

    Its fields (link_unit's are the same):
      table: the stage table (COMPILE_TABLE, CLANG_TABLE).
      actions: the graph's actions, in pipeline order: dicts of stage (the record), inst (its
        archs), script (its script's key), outputs and reads (keys of files).
      files, scripts: {key: File} of every output and script (declare_unit).
      layout: File, the layout CudaPlan reads.
      plan_outputs: every File CudaPlan writes (the scripts and the table's plan_outputs).
      cuda: CudaToolchainInfo. cc_files: depset, the C++ toolchain's files.
      nvcc_inputs: Files nvcc reads to plan besides the toolkit (an options file).
      src: File, the source. headers: depset, what it may include.
      rdc: whether its device code is relocatable.
      splice_tool: FilesToRunProvider of the SPLICE_TOOL hook (clang's embed), or None.
      link_inputs: None (a device link's inputs per arch). lto: False.
      split_compile: nvcc's --split-compile threads (1: off; compile/split_compile.bzl); 1 for a link.
      ptx_checked: the virtual archs whose PTX is embedded with no cubin of their own: nvcc checks
        that PTX with ptxas, and so does their CudaCicc (the PTX_CHECK hook); [] for a link.

    Args:
      table, graph, declared, cuda, cc_files, nvcc_inputs, src, headers, rdc, splice_tool, split_compile, ptx_checked: as above
        (graph: stage_graph.unit_graph's result; declared: declare_unit's).

    Returns:
      The unit.
    """
    return _unit(
        table = table,
        graph = graph,
        declared = declared,
        cuda = cuda,
        cc_files = cc_files,
        nvcc_inputs = nvcc_inputs,
        src = src,
        headers = headers,
        rdc = rdc,
        splice_tool = splice_tool,
        link_inputs = None,
        lto = False,
        split_compile = split_compile,
        ptx_checked = ptx_checked,
    )

def link_unit(*, table, graph, declared, cuda, cc_files, link_inputs, lto):
    """One device link (compile/device_link.bzl): source_unit's fields, with

      link_inputs: {sm_NN: [device link input]} (each with image and script), what the
        LINK_INPUTS hook adds to that arch's CudaDeviceLink.
      lto: whether it links LTO IR (-dlto).
      src, headers, splice_tool: None; nvcc_inputs: []; rdc: False.

    Args:
      table, graph, declared, cuda, cc_files, link_inputs, lto: as above and in source_unit.

    Returns:
      The unit.
    """
    return _unit(
        table = table,
        graph = graph,
        declared = declared,
        cuda = cuda,
        cc_files = cc_files,
        nvcc_inputs = [],
        src = None,
        headers = None,
        rdc = False,
        splice_tool = None,
        link_inputs = link_inputs,
        lto = lto,
    )

def layout_object(keys, values):
    """`values`, failing analysis unless its keys are exactly `keys`: those tools/nvcc_plan/layout.py reads (stages.bzl).

    Args:
      keys: COMPILE_LAYOUT_KEYS, ARCH_KEYS, LINK_LAYOUT_KEYS or LINK_INPUT_KEYS.
      values: dict, one object of a layout file.

    Returns:
      values.
    """
    if sorted(values.keys()) != sorted(keys):
        fail("a layout object has keys {}, layout.py reads {}: regenerate stages.bzl (bazel run //dev:update)".format(
            sorted(values.keys()),
            sorted(keys),
        ))
    return values

def paths(files):
    """{key: File} -> {key: path}, for the layout file."""
    return {k: f.path for k, f in files.items()}
