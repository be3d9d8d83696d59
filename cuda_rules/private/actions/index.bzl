"""Each stage kind of the table and its action function: every stage instance of a source or a device link, registered.

A kind of stages.bzl without an entry here fails analysis, naming it.
"""

load("//cuda_rules/private:actions/cicc.bzl", "cicc_action")
load("//cuda_rules/private:actions/clang_device.bzl", "clang_device_action")
load("//cuda_rules/private:actions/clang_embed.bzl", "clang_embed_action")
load("//cuda_rules/private:actions/clang_host.bzl", "clang_host_action")
load("//cuda_rules/private:actions/device_preprocess.bzl", "device_preprocess_action")
load("//cuda_rules/private:actions/embed_fatbin.bzl", "embed_fatbin_action")
load("//cuda_rules/private:actions/fatbinary.bzl", "fatbinary_action")
load("//cuda_rules/private:actions/frontend.bzl", "frontend_action")
load("//cuda_rules/private:actions/host_compile.bzl", "host_compile_action")
load("//cuda_rules/private:actions/host_preprocess.bzl", "host_preprocess_action")
load("//cuda_rules/private:actions/link_stub.bzl", "link_stub_action")
load("//cuda_rules/private:actions/nvlink.bzl", "nvlink_action")
load("//cuda_rules/private:actions/ptxas.bzl", "ptxas_action")
load("//cuda_rules/private:actions/registration_stub.bzl", "registration_stub_action")
load("//cuda_rules/private:layout.bzl", "stage_instances")
load("//cuda_rules/private:toolchain.bzl", "CUDA_TOOLCHAINS")

visibility(["//cuda_rules/..."])

_ACTIONS = {
    "cicc": cicc_action,
    "clang_device": clang_device_action,
    "clang_embed": clang_embed_action,
    "clang_host": clang_host_action,
    "device_preprocess": device_preprocess_action,
    "embed_fatbin": embed_fatbin_action,
    "fatbinary": fatbinary_action,
    "frontend": frontend_action,
    "host_compile": host_compile_action,
    "host_preprocess": host_preprocess_action,
    "link_stub": link_stub_action,
    "nvlink": nvlink_action,
    "ptxas": ptxas_action,
    "registration_stub": registration_stub_action,
}

def run_stages(actions, unit):
    """Registers one action per instance of every stage of the unit's table, in table order.

    Args:
      actions: ctx.actions.
      unit: the source's or device link's unit: its table (COMPILE_TABLE, LINK_TABLE), and its
        archs (layout.stage_instances).
    """
    for stage in unit.table.stages:
        action = _ACTIONS.get(stage.kind)
        if action == None:
            fail("stage {} of the stage table has no action function: add actions/{}.bzl and list it in actions/index.bzl".format(stage.kind, stage.kind))
        for inst in stage_instances(stage, unit.archs, unit.link_archs):
            action(actions, stage, inst, unit)

def stage_exec_groups(*tables):
    """The exec groups a rule declares for the stages of the tables it runs (COMPILE_TABLE, LINK_TABLE).

    The heavy per-arch stages run in their own exec groups, so a target can
    route them to other workers: exec_properties = {"ptxas.Pool": "large"}.

    Args:
      *tables: the pipelines (stages.bzl).

    Returns:
      A dict for rule(exec_groups = ...).
    """
    return {name: exec_group(toolchains = CUDA_TOOLCHAINS) for table in tables for name in table.exec_groups}
