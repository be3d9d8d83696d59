"""Analysis tests of what rules_cuda's users rely on: cuda_objects, rdc libraries that device-link themselves,
the build's flags (enable, copts, host_copts, compiler, runtime), rules_cuda's attribute names, and their errors."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("//tests/common:analysis.bzl", "actions_of", "assert_argv_contains", "assert_argv_lacks")
load("//tests/common:suite.bzl", "test_suite_of")

_ENABLE = str(Label("//cuda_rules:enable"))
_COPTS = str(Label("//cuda_rules:copts"))
_HOST_COPTS = str(Label("//cuda_rules:host_copts"))
_COMPILER = str(Label("//cuda_rules:compiler"))
_RUNTIME = str(Label("//cuda_rules:runtime"))

def _plans(env, command):
    return [a for a in actions_of(env, "CudaPlan") if command in a.argv]

def _basenames(files):
    return sorted([f.basename for f in files])

# cuda_objects --------------------------------------------------------------

def _objects_both_variants_test_impl(ctx):
    env = analysistest.begin(ctx)
    plans = _plans(env, "compile")

    # b.cu compiled twice: whole-program and relocatable, each in stages.
    asserts.equals(env, 2, len(plans), "CudaPlan actions of b.cu")
    asserts.equals(env, [False, True], sorted(["-rdc=true" in p.argv for p in plans]))
    target = analysistest.target_under_test(env)
    asserts.equals(env, ["b.o"], _basenames(target[DefaultInfo].files.to_list()), "default output: the relocatable object")
    asserts.true(env, "/_cuda_rdc/" in target[DefaultInfo].files.to_list()[0].path)

    # No linking of its own: the library above archives the objects.
    owners = [li.owner for li in target[CcInfo].linking_context.linker_inputs.to_list()]
    asserts.false(env, target.label in owners, "cuda_objects links nothing itself: " + str(owners))
    return analysistest.end(env)

objects_both_variants_test = analysistest.make(_objects_both_variants_test_impl)

def _rdc_library_archives_and_links_objects_test_impl(ctx):
    env = analysistest.begin(ctx)

    # The rdc library archives a.cu's and b.cu's relocatable objects...
    archives = [
        a
        for a in actions_of(env, "CppArchive")
        if a.outputs.to_list()[0].basename.startswith("liblibrdc.") and "/_cuda_dlink/" not in a.outputs.to_list()[0].path
    ]
    asserts.equals(env, 1, len(archives), "the library's archive")
    if archives:
        members = [f.path for f in archives[0].inputs.to_list() if f.extension == "o"]
        asserts.equals(env, ["a.o", "b.o"], sorted([m.rpartition("/")[2] for m in members]))
        asserts.true(env, all(["/_cuda_rdc/" in m for m in members]), "relocatable objects: " + str(members))

    # ...and device-links their code itself: one CudaDeviceLink per real arch over both sources.
    links = actions_of(env, "CudaDeviceLink")
    asserts.true(env, len(links) > 0, "the library device-links")
    for link in links:
        asserts.equals(env, ["a.cubin", "b.cubin"], _basenames([f for f in link.inputs.to_list() if f.extension == "cubin"]))
    asserts.equals(env, 1, len(actions_of(env, "CudaLinkStub")))
    return analysistest.end(env)

rdc_library_archives_and_links_objects_test = analysistest.make(_rdc_library_archives_and_links_objects_test_impl)

def _whole_library_archives_whole_objects_test_impl(ctx):
    env = analysistest.begin(ctx)
    archives = actions_of(env, "CppArchive")
    asserts.equals(env, 1, len(archives))
    if archives:
        members = [f.path for f in archives[0].inputs.to_list() if f.extension == "o"]
        asserts.equals(env, ["other_kernel.o"], [m.rpartition("/")[2] for m in members])
        asserts.false(env, "/_cuda_rdc/" in members[0], "whole-program object")
    asserts.equals(env, [], actions_of(env, "CudaDeviceLink"), "no device link without rdc")
    return analysistest.end(env)

whole_library_archives_whole_objects_test = analysistest.make(_whole_library_archives_whole_objects_test_impl)

def _rdc_library_device_link_first_test_impl(ctx):
    env = analysistest.begin(ctx)
    inputs = analysistest.target_under_test(env)[CcInfo].linking_context.linker_inputs.to_list()
    links = [li for li in inputs if li.owner.name.endswith(".rules_cuda_stages_device_link")]
    names = [li.owner.name for li in links]

    # Its own device link (over the rdc library below too) comes before the
    # one below, right after its own objects; neither is alwayslink, so a
    # binary links the first and never needs the second.
    asserts.equals(env, ["outer_rdc.rules_cuda_stages_device_link", "inner_rdc.rules_cuda_stages_device_link"], names)
    asserts.equals(env, "outer_rdc.rules_cuda_stages_device_link", inputs[1].owner.name if len(inputs) > 1 else "")
    for li in links:
        for lib in li.libraries:
            asserts.false(env, lib.alwayslink, "%s's device link is alwayslink" % li.owner.name)
    return analysistest.end(env)

rdc_library_device_link_first_test = analysistest.make(_rdc_library_device_link_first_test_impl)

# Flags ---------------------------------------------------------------------

def _copts_flags_test_impl(ctx):
    env = analysistest.begin(ctx)
    for plan in _plans(env, "compile"):
        assert_argv_contains(env, plan, ["-lineinfo", "-Xcompiler=-fno-omit-frame-pointer", "-Xcompiler=-Wall"])
    return analysistest.end(env)

copts_flags_test = analysistest.make(
    _copts_flags_test_impl,
    config_settings = {
        _COPTS: ["-lineinfo"],
        _HOST_COPTS: ["-fno-omit-frame-pointer", "-Wall"],
    },
)

# rules_cuda's --@rules_cuda//cuda:cc_host_compile_flags_to_skip: the C++
# toolchain flag (-fno-omit-frame-pointer, which Bazel's Linux toolchain
# gives every compile) reaches nvcc's host compiler, unless skipped.
_SKIP = str(Label("//cuda_rules:cc_host_compile_flags_to_skip"))

def _toolchain_flag_reaches_nvcc_test_impl(ctx):
    env = analysistest.begin(ctx)
    plans = _plans(env, "compile")
    asserts.true(env, len(plans) > 0)
    for plan in plans:
        assert_argv_contains(env, plan, ["-Xcompiler=-fno-omit-frame-pointer"])
    return analysistest.end(env)

toolchain_flag_reaches_nvcc_test = analysistest.make(_toolchain_flag_reaches_nvcc_test_impl)

def _skip_toolchain_flag_test_impl(ctx):
    env = analysistest.begin(ctx)
    plans = _plans(env, "compile")
    asserts.true(env, len(plans) > 0)
    for plan in plans:
        assert_argv_lacks(env, plan, ["-Xcompiler=-fno-omit-frame-pointer"])
    return analysistest.end(env)

skip_toolchain_flag_test = analysistest.make(
    _skip_toolchain_flag_test_impl,
    config_settings = {_SKIP: ["-fno-omit-frame-pointer"]},
)

# rules_cuda's list of archs, cuda_device_debug feature, output groups and cuda_binary names.

def _archs_list_test_impl(ctx):
    env = analysistest.begin(ctx)
    for plan in _plans(env, "compile"):
        assert_argv_contains(env, plan, ["-gencode=arch=compute_80,code=[sm_80]", "-gencode=arch=compute_90,code=[sm_90]", "-G"])
    return analysistest.end(env)

archs_list_test = analysistest.make(_archs_list_test_impl)

def _archs_spec_list_test_impl(ctx):
    env = analysistest.begin(ctx)
    for plan in _plans(env, "compile"):
        assert_argv_contains(env, plan, ["-gencode=arch=compute_80,code=[sm_80,sm_86]", "-gencode=arch=compute_90,code=[compute_90]"])
        assert_argv_lacks(env, plan, ["-G"])
    return analysistest.end(env)

archs_spec_list_test = analysistest.make(_archs_spec_list_test_impl)

def _rules_cuda_output_groups_test_impl(ctx):
    env = analysistest.begin(ctx)
    groups = analysistest.target_under_test(env)[OutputGroupInfo]
    rdc = _basenames(groups.rdc_objects.to_list())
    asserts.equals(env, ["kernel.o"], rdc, "rdc_objects of an rdc library")
    asserts.equals(env, rdc, _basenames(groups.rdc_pic_objects.to_list()), "rdc_pic_objects")
    asserts.equals(env, [], groups.objects.to_list(), "objects of an rdc library")
    asserts.equals(env, ["libouter_rdc.lo"], _basenames(groups.lib.to_list()), "lib (alwayslink: rdc)")
    asserts.equals(env, ["libouter_rdc.lo"], _basenames(groups.pic_lib.to_list()), "pic_lib")
    return analysistest.end(env)

rules_cuda_output_groups_test = analysistest.make(_rules_cuda_output_groups_test_impl)

def _binary_rules_cuda_names_test_impl(ctx):
    env = analysistest.begin(ctx)
    links = actions_of(env, "CppLink")
    asserts.equals(env, 1, len(links), "CppLink actions")
    for link in links:
        assert_argv_contains(env, link, ["-lrt"])
    return analysistest.end(env)

binary_rules_cuda_names_test = analysistest.make(_binary_rules_cuda_names_test_impl)

def _compiler_clang_test_impl(ctx):
    env = analysistest.begin(ctx)

    # rules_cuda's clang mode compiles with the C++ toolchain's clang (issue 33); gcc's is no clang.
    asserts.expect_failure(env, "--@rules_cuda_stages//cuda_rules:compiler=clang compiles CUDA with the C++ toolchain's compiler")
    asserts.expect_failure(env, "point the C++ toolchain at clang")
    return analysistest.end(env)

compiler_clang_test = analysistest.make(
    _compiler_clang_test_impl,
    expect_failure = True,
    config_settings = {_COMPILER: "clang"},
)

def _bad_flag_copt_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "nvcc option '-arch=sm_80' in `--@rules_cuda_stages//cuda_rules:copts` is not allowed")
    return analysistest.end(env)

bad_flag_copt_test = analysistest.make(
    _bad_flag_copt_test_impl,
    expect_failure = True,
    config_settings = {_COPTS: ["-arch=sm_80"]},
)

def _check_defines(env, expected, unexpected):
    for action in actions_of(env, "CppCompile"):
        assert_argv_contains(env, action, expected)
        assert_argv_lacks(env, action, unexpected)
    asserts.true(env, len(actions_of(env, "CppCompile")) > 0)

def _enabled_select_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_defines(env, ["-DCUDA_ENABLED"], ["-DCUDA_NOT_ENABLED"])
    return analysistest.end(env)

enabled_select_test = analysistest.make(_enabled_select_test_impl)

def _disabled_select_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check_defines(env, ["-DCUDA_NOT_ENABLED"], ["-DCUDA_ENABLED"])

    # The kernel (a cuda_library) is not a dependency: nothing of CUDA is compiled.
    mnemonics = [a.mnemonic for a in analysistest.target_actions(env)]
    asserts.false(env, "CudaPlan" in mnemonics, str(mnemonics))
    return analysistest.end(env)

disabled_select_test = analysistest.make(_disabled_select_test_impl, config_settings = {_ENABLE: False})

def _runtime_flag_test_impl(ctx):
    env = analysistest.begin(ctx)
    libraries = [
        lib
        for li in analysistest.target_under_test(env)[CcInfo].linking_context.linker_inputs.to_list()
        for lib in li.libraries
    ]
    shared = [lib.dynamic_library.basename for lib in libraries if lib.dynamic_library]
    asserts.true(env, [s for s in shared if s.startswith("libcudart.so")] != [], "the shared CUDA runtime is linked: " + str(shared))
    statics = [lib.static_library.basename for lib in libraries if lib.static_library]
    asserts.false(env, "libcudart_static.a" in statics, "and not the static one")
    return analysistest.end(env)

runtime_flag_test = analysistest.make(
    _runtime_flag_test_impl,
    config_settings = {_RUNTIME: str(Label("@cuda//:cuda_runtime_shared"))},
)

# Attributes ----------------------------------------------------------------

def _rules_cuda_attribute_names_test_impl(ctx):
    env = analysistest.begin(ctx)
    for plan in _plans(env, "compile"):
        assert_argv_contains(env, plan, ["-DFROM_HOST_DEFINES", "-DFROM_HOST_LOCAL_DEFINES"])
    target = analysistest.target_under_test(env)
    defines = target[CcInfo].compilation_context.defines.to_list()
    asserts.true(env, "FROM_HOST_DEFINES" in defines, "host_defines reach dependents")
    asserts.false(env, "FROM_HOST_LOCAL_DEFINES" in defines, "host_local_defines do not")

    # implementation_deps: compiled against, linked, not seen by dependents.
    asserts.false(env, "FROM_IMPLEMENTATION_DEP" in defines, "implementation_deps' defines stay private")
    for plan in _plans(env, "compile"):
        assert_argv_contains(env, plan, ["-DFROM_IMPLEMENTATION_DEP"])
        assert_argv_contains(env, plan, ["--options-file"])
        asserts.true(env, [f for f in plan.inputs.to_list() if f.basename == "options.optf"] != [], "CudaPlan reads the options file")
    flags = [f for li in target[CcInfo].linking_context.linker_inputs.to_list() for f in li.user_link_flags]
    asserts.true(env, "-lm" in flags and "-ldl" in flags, "linkopts and host_linkopts: " + str(flags))
    asserts.true(env, "-lrt" in flags, "implementation_deps are linked: " + str(flags))
    return analysistest.end(env)

rules_cuda_attribute_names_test = analysistest.make(_rules_cuda_attribute_names_test_impl)

def _device_link_option_in_linkopts_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "'-Xnvlink=--verbose' in `linkopts` is an option of nvcc's device link")
    asserts.expect_failure(env, "move it to `dlinkopts`")
    return analysistest.end(env)

device_link_option_in_linkopts_test = analysistest.make(_device_link_option_in_linkopts_test_impl, expect_failure = True)

def _lto_objects_in_whole_library_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "compiles LTO archs (lto_NN), which need relocatable device code")
    asserts.expect_failure(env, "set rdc = True on")
    return analysistest.end(env)

lto_objects_in_whole_library_test = analysistest.make(_lto_objects_in_whole_library_test_impl, expect_failure = True)

def compat_test_suite(name):
    """The analysis tests of the rules_cuda drop-in, over the consumer module's and this package's targets.

    Args:
      name: the test_suite's name.
    """
    consumer = "@rules_cuda_compat_consumer//"
    test_suite_of(name, {
        "archs_list_test": (archs_list_test, {"target_under_test": ":archs_list"}),
        "archs_spec_list_test": (archs_spec_list_test, {"target_under_test": ":archs_spec_list"}),
        "bad_flag_copt_test": (bad_flag_copt_test, {"target_under_test": consumer + "basic:kernel"}),
        "binary_rules_cuda_names_test": (binary_rules_cuda_names_test, {"target_under_test": ":binary_rules_cuda_names"}),
        "compiler_clang_test": (compiler_clang_test, {"target_under_test": consumer + "basic:kernel"}),
        "copts_flags_test": (copts_flags_test, {"target_under_test": consumer + "basic:kernel"}),
        "device_link_option_in_linkopts_test": (device_link_option_in_linkopts_test, {"target_under_test": ":nvlink_in_linkopts"}),
        "disabled_select_test": (disabled_select_test, {"target_under_test": consumer + "if_cuda:main"}),
        "enabled_select_test": (enabled_select_test, {"target_under_test": consumer + "if_cuda:main"}),
        "lto_objects_in_whole_library_test": (lto_objects_in_whole_library_test, {"target_under_test": ":whole_over_lto_objects"}),
        "objects_both_variants_test": (objects_both_variants_test, {"target_under_test": consumer + "rdc:b"}),
        "rdc_library_archives_and_links_objects_test": (rdc_library_archives_and_links_objects_test, {"target_under_test": consumer + "rdc:librdc"}),
        "rdc_library_device_link_first_test": (rdc_library_device_link_first_test, {"target_under_test": ":outer_rdc"}),
        "rules_cuda_attribute_names_test": (rules_cuda_attribute_names_test, {"target_under_test": ":attribute_names"}),
        "rules_cuda_output_groups_test": (rules_cuda_output_groups_test, {"target_under_test": ":outer_rdc"}),
        "runtime_flag_test": (runtime_flag_test, {"target_under_test": consumer + "basic:kernel"}),
        "skip_toolchain_flag_test": (skip_toolchain_flag_test, {"target_under_test": consumer + "basic:kernel"}),
        "toolchain_flag_reaches_nvcc_test": (toolchain_flag_reaches_nvcc_test, {"target_under_test": consumer + "basic:kernel"}),
        "whole_library_archives_whole_objects_test": (whole_library_archives_whole_objects_test, {"target_under_test": ":whole_over_objects"}),
    })
