"""A stage added to the table is an action, with nothing but its record: ARCHITECTURE.md's "Adding a stage".

A test-only table is nvcc's compile table with one more stage, CudaTestNoop:
one action per source that reads the source's object and its host
preprocess, runs fatbinary (a toolkit file) and writes one file. A rule
applies it to a source with the very functions cuda_library's sources go
through (stage_graph.bzl's unit_graph, unit.bzl's declare_unit and
source_unit, actions/stage.bzl's run_stages); the test checks that the
action exists with the record's mnemonic, script, outputs and inputs, and
that the table's other actions are unchanged. No file of the
rules knows the stage: the record is all there is of it.
"""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("//cuda_rules:toolchain.bzl", "CUDA_TOOLCHAINS", "find_cuda_toolchain")
load("//cuda_rules/private:actions/stage.bzl", "run_stages", "stage_exec_groups")  # buildifier: disable=bzl-visibility
load("//cuda_rules/private:stage_graph.bzl", "registration_arch", "unit_graph")  # buildifier: disable=bzl-visibility
load("//cuda_rules/private:stages.bzl", "COMPILE_TABLE", "KEYS", "SAME", "SOURCE")  # buildifier: disable=bzl-visibility
load("//cuda_rules/private:unit.bzl", "declare_unit", "source_unit")  # buildifier: disable=bzl-visibility

# The record, as gen_stages_bzl.py writes one into stages.bzl.
TEST_NOOP = struct(
    name = "test_noop",
    mnemonic = "CudaTestNoop",
    scope = SOURCE,
    outputs = [
        struct(key = "noop", pattern = "{stem}.noop", lto_pattern = "", scope = ""),
    ],
    reads = [(KEYS.obj, SAME), (KEYS.cpp4, SAME)],
    source = False,
    host_compiler = False,
    toolkit = ["fatbinary"],
    device = False,
    exec_group = "",
    split_compile = "",
    split_compile_below_arch = "",
    progress = "Testing %{label}: %{output}",
    hook = "",
    script_name = "test_noop",
    doc = "a stage that only the test table has",
)

TEST_TABLE = struct(
    name = "test",
    stages = COMPILE_TABLE.stages + [TEST_NOOP],
    plan_outputs = COMPILE_TABLE.plan_outputs,
    plan_scope = COMPILE_TABLE.plan_scope,
    products = COMPILE_TABLE.products + ["noop"],
    exec_groups = COMPILE_TABLE.exec_groups,
)

def _with_table_impl(ctx):
    virtuals = [struct(virtual = "compute_80", reals = ["sm_80"], ptx = False, lto = False)]
    graph = unit_graph(TEST_TABLE, virtuals = virtuals, stem = "k", registration = registration_arch(virtuals, ""))
    declared = declare_unit(ctx.actions, "_cuda/{}/k/".format(ctx.label.name), graph)
    unit = source_unit(
        table = TEST_TABLE,
        graph = graph,
        declared = declared,
        cuda = find_cuda_toolchain(ctx),
        cc_files = depset(),
        nvcc_inputs = [],
        src = ctx.file.src,
        headers = depset(),
        rdc = False,
        splice_tool = None,
        split_compile = 1,
    )

    # CudaPlan's part (the rules' plan_action), stood in for: this test analyses, it runs nothing.
    for f in unit.plan_outputs + [unit.layout]:
        ctx.actions.write(f, "")
    run_stages(ctx.actions, unit)
    return [DefaultInfo(files = depset(declared.files.values()))]

staged_with_test_table = rule(
    implementation = _with_table_impl,
    doc = "A source compiled by the test table (analysed only).",
    attrs = {"src": attr.label(allow_single_file = True, mandatory = True)},
    exec_groups = stage_exec_groups(TEST_TABLE),
    toolchains = CUDA_TOOLCHAINS,
)

def _extra_stage_test_impl(ctx):
    env = analysistest.begin(ctx)
    actions = analysistest.target_actions(env)
    noop = [a for a in actions if a.mnemonic == TEST_NOOP.mnemonic]
    asserts.equals(env, 1, len(noop), "one CudaTestNoop action per source")
    if noop:
        action = noop[0]
        asserts.equals(env, ["k.noop"], [f.basename for f in action.outputs.to_list()])
        inputs = [f.path for f in action.inputs.to_list()]
        base = "_cuda/{}/k/".format(analysistest.target_under_test(env).label.name)
        for wanted in [base + "k.o", base + "k.cpp4.ii", base + "plan/test_noop.sh", "/bin/fatbinary"]:
            asserts.true(env, [p for p in inputs if p.endswith(wanted)] != [], "CudaTestNoop reads {}: {}".format(wanted, inputs))
        asserts.false(env, [p for p in inputs if p.endswith("kernel.cu")] != [], "and not the source (its record says none)")
        asserts.equals(env, "/bin/sh", action.argv[0])
        asserts.true(env, action.argv[1].endswith(base + "plan/test_noop.sh"), action.argv)

    # The table's other stages are all there, each once.
    for stage in COMPILE_TABLE.stages:
        asserts.equals(env, 1, len([a for a in actions if a.mnemonic == stage.mnemonic]), stage.mnemonic)
    return analysistest.end(env)

extra_stage_test = analysistest.make(_extra_stage_test_impl)
