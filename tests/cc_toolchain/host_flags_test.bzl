"""The C++ toolchain's flags in the .cu stages (host_flags.bzl), compilation modes and device debug: unit and analysis tests."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts", "unittest")

# Private files, loaded by tests on purpose: their visibility() allows //tests/...
# buildifier: disable=bzl-visibility
load("//cuda_rules/private:compile/host_flags.bzl", "DROPPED", "classify_host_flags", "dialect", "xcompiler")

# buildifier: disable=bzl-visibility
load("//cuda_rules/private:device_debug.bzl", "device_debug_requested")
load("//tests/common:analysis.bzl", "actions_of", "assert_argv_contains", "assert_argv_lacks", "only_action")
load("//tests/common:suite.bzl", "test_suite_of")

_DEVICE_DEBUG = str(Label("//cuda_rules:device_debug"))
_COPT = "//command_line_option:copt"
_CXXOPT = "//command_line_option:cxxopt"
_MODE = "//command_line_option:compilation_mode"

# Unit tests -------------------------------------------------------------------

def _classify_test_impl(ctx):
    env = unittest.begin(ctx)
    flags = [
        "-U_FORTIFY_SOURCE",
        "-fstack-protector",
        "-Wall",
        "-O2",
        "-D_FORTIFY_SOURCE=1",
        "-DNDEBUG",
        "-g",
        "-std=c++17",
        "-MD",
        "-MF",
        "x.d",
        "-frandom-seed=x.o",
        "-isystem",
        "external/sysroot/usr/include",
        "--sysroot=external/sysroot",
        "-Iinc",
        "-D",
        "PAIRED=1",
        "-fno-canonical-system-headers",
        "-Wno-builtin-macro-redefined",
        "-D__DATE__=\"redacted\"",
        "-gsplit-dwarf",
        "--coverage",
        "-fmodule-map-file=x.cppmap",
        "-Xclang",
        "-fmodules-strict-decluse",
        "-c",
        "x.cc",
        "-o",
        "x.o",
        "-x",
        "c++",
    ]
    c = classify_host_flags(flags, nvcc_sets_std = False)
    asserts.equals(env, "c++17", c.std)
    asserts.equals(env, [
        "-U_FORTIFY_SOURCE",
        "-fstack-protector",
        "-Wall",
        "-O2",
        "-D_FORTIFY_SOURCE=1",
        "-DNDEBUG",
        "-g",
        "-isystem",
        "external/sysroot/usr/include",
        "--sysroot=external/sysroot",
        "-Iinc",
        "-D",
        "PAIRED=1",
        "-fno-canonical-system-headers",
        "-Wno-builtin-macro-redefined",
        "-D__DATE__=\"redacted\"",
        "x.cc",
    ], c.host)

    # Optimization, debug info, warnings, code generation and glibc's fortify
    # switch are host code only.
    asserts.equals(env, [
        "-DNDEBUG",
        "-isystem",
        "external/sysroot/usr/include",
        "--sysroot=external/sysroot",
        "-Iinc",
        "-D",
        "PAIRED=1",
        "-fno-canonical-system-headers",
        "-Wno-builtin-macro-redefined",
        "-D__DATE__=\"redacted\"",
    ], c.device)
    dropped = [f for f, _ in c.dropped]
    asserts.equals(env, ["-MD", "-MF x.d", "-frandom-seed=x.o", "-gsplit-dwarf", "--coverage", "-fmodule-map-file=x.cppmap", "-Xclang -fmodules-strict-decluse", "-c", "-o x.o", "-x c++"], dropped)
    for _, why in c.dropped:
        asserts.true(env, why, "a dropped flag without a reason")
    asserts.true(env, "-frandom-seed" in DROPPED)
    return unittest.end(env)

classify_test = unittest.make(_classify_test_impl)

def _dialect_test_impl(ctx):
    env = unittest.begin(ctx)
    for flag, want in [
        ("-std=c++17", "c++17"),
        ("-std=gnu++17", "c++17"),
        ("-std=c++2a", "c++20"),
        ("-std=gnu++14", "c++14"),
        ("-std=c++1z", "c++17"),
        ("-std=c++23", "c++23"),
        ("-std=c17", None),
    ]:
        asserts.equals(env, want, dialect(flag), flag)

    # gnu++: nvcc's -std=c++NN, and the flag itself for the host compiler (its last -std wins).
    c = classify_host_flags(["-std=c++17", "-std=gnu++20"], nvcc_sets_std = False)
    asserts.equals(env, "c++20", c.std)
    asserts.equals(env, ["-std=gnu++20"], c.host)
    asserts.equals(env, ["-std=gnu++20"], c.device)

    # A target that chooses -std itself: the toolchain's is left out.
    c = classify_host_flags(["-std=gnu++20", "-O2"], nvcc_sets_std = True)
    asserts.equals(env, None, c.std)
    asserts.equals(env, ["-O2"], c.host)
    asserts.equals(env, ["-std=gnu++20"], [f for f, _ in c.dropped])
    return unittest.end(env)

dialect_test = unittest.make(_dialect_test_impl)

def _xcompiler_test_impl(ctx):
    env = unittest.begin(ctx)
    asserts.equals(env, "-Xcompiler=-O2", xcompiler("-O2"))
    asserts.equals(env, "-Xcompiler=--sysroot=external/s~y", xcompiler("--sysroot=external/s~y").replace("'", ""))
    asserts.equals(env, "-Xcompiler=-Wa\\,--noexecstack", xcompiler("-Wa,--noexecstack"))
    asserts.equals(env, "-Xcompiler='-D__DATE__=\"redacted\"'", xcompiler("-D__DATE__=\"redacted\""))
    asserts.equals(env, "-Xcompiler='-DQ=it'\\''s'", xcompiler("-DQ=it's"))
    return unittest.end(env)

xcompiler_test = unittest.make(_xcompiler_test_impl)

def _device_debug_patterns_test_impl(ctx):
    env = unittest.begin(ctx)
    main = Label("//pkg/sub:kernels")
    for patterns, want in [
        ([], False),
        (["//pkg/sub:kernels"], True),
        (["//pkg/sub:other"], False),
        (["//pkg/sub:all"], True),
        (["//pkg/sub:*"], True),
        (["//pkg/..."], True),
        (["//pkg/sub/..."], True),
        (["//pk/..."], False),
        (["//..."], True),
        (["@//pkg/sub:kernels"], True),
        (["@other//..."], False),
        (["//x:y,//pkg/sub:kernels"], True),
        (["//x:y", " //pkg:all"], False),
    ]:
        asserts.equals(env, want, device_debug_requested(main, patterns), str(patterns))

    # A cuda_binary / cuda_test compiles its sources in _<name>_cuda.
    asserts.true(env, device_debug_requested(Label("//pkg:_app_cuda"), ["//pkg:app"]))
    asserts.true(env, device_debug_requested(Label("//pkg:pkg"), ["//pkg"]))
    return unittest.end(env)

device_debug_patterns_test = unittest.make(_device_debug_patterns_test_impl)

# Analysis tests ---------------------------------------------------------------

def _layout_of(env):
    for action in analysistest.target_actions(env):
        if action.mnemonic == "FileWrite" and action.outputs.to_list()[0].basename == "layout.json":
            return json.decode(action.content)
    fail("no layout.json written")

def _check(env, host = [], device = [], not_host = [], not_device = [], plan_has = [], plan_lacks = []):
    layout = _layout_of(env)
    for f in host:
        asserts.true(env, f in layout["host_toolchain_flags"], "host stages lack {}: {}".format(f, layout["host_toolchain_flags"]))
    for f in not_host:
        asserts.false(env, f in layout["host_toolchain_flags"], "host stages get {}: {}".format(f, layout["host_toolchain_flags"]))
    for f in device:
        asserts.true(env, f in layout["device_toolchain_flags"], "the device preprocess lacks {}: {}".format(f, layout["device_toolchain_flags"]))
    for f in not_device:
        asserts.false(env, f in layout["device_toolchain_flags"], "the device preprocess gets {}: {}".format(f, layout["device_toolchain_flags"]))
    plan = only_action(env, "CudaPlan")
    if plan:
        assert_argv_contains(env, plan, plan_has)
        assert_argv_lacks(env, plan, plan_lacks)

        # The toolchain's flags come before the target's options (which win).
        argv = plan.argv
        if "-Xcompiler=-fstack-protector" in argv and "-O3" in argv:
            asserts.true(env, argv.index("-Xcompiler=-fstack-protector") < argv.index("-O3"), "toolchain flags after the target's")
    return layout

def _cxxopt_reaches_host_stages_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check(
        env,
        host = ["-Wextra", "-DFROM_COPT=1", "-fstack-protector"],
        device = ["-DFROM_COPT=1"],
        not_device = ["-Wextra", "-fstack-protector", "-g"],
        plan_has = ["-Xcompiler=-Wextra", "-Xcompiler=-DFROM_COPT=1", "-Xcompiler=-fstack-protector", "-O3"],
        plan_lacks = ["-G", "-Xcompiler=-MD"],
    )
    return analysistest.end(env)

cxxopt_reaches_host_stages_test = analysistest.make(
    _cxxopt_reaches_host_stages_test_impl,
    config_settings = {_COPT: ["-DFROM_COPT=1"], _CXXOPT: ["-Wextra"]},
)

def _dbg_is_host_debug_info_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check(env, host = ["-g"], not_device = ["-g"], plan_has = ["-Xcompiler=-g"], plan_lacks = ["-G"])
    return analysistest.end(env)

dbg_is_host_debug_info_test = analysistest.make(_dbg_is_host_debug_info_test_impl, config_settings = {_MODE: "dbg"})

def _opt_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check(
        env,
        host = ["-O2", "-DNDEBUG", "-D_FORTIFY_SOURCE=1"],
        device = ["-DNDEBUG"],
        not_device = ["-O2", "-D_FORTIFY_SOURCE=1", "-ffunction-sections"],
        plan_lacks = ["-G"],
    )
    return analysistest.end(env)

opt_test = analysistest.make(_opt_test_impl, config_settings = {_MODE: "opt"})

def _std_from_cxxopt_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check(env, plan_has = ["-std=c++20"], plan_lacks = ["-std=c++17", "-Xcompiler=-std=c++20", "-Xcompiler=-std=c++17"])
    return analysistest.end(env)

std_from_cxxopt_test = analysistest.make(_std_from_cxxopt_test_impl, config_settings = {_CXXOPT: ["-std=c++20"]})

def _gnu_std_from_cxxopt_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check(env, host = ["-std=gnu++20"], device = ["-std=gnu++20"], plan_has = ["-std=c++20", "-Xcompiler=-std=gnu++20"])
    return analysistest.end(env)

gnu_std_from_cxxopt_test = analysistest.make(_gnu_std_from_cxxopt_test_impl, config_settings = {_CXXOPT: ["-std=gnu++20"]})

def _target_std_wins_test_impl(ctx):
    env = analysistest.begin(ctx)
    plan = only_action(env, "CudaPlan")
    if plan:
        asserts.equals(env, ["-std=c++17"], [a for a in plan.argv if "-std" in a], "the target's -std only")
    return analysistest.end(env)

target_std_wins_test = analysistest.make(_target_std_wins_test_impl, config_settings = {_CXXOPT: ["-std=c++20"]})

def _dropped_flags_test_impl(ctx):
    env = analysistest.begin(ctx)
    for mnemonic in ["CudaPlan", "CudaCompile"]:
        for action in actions_of(env, mnemonic):
            bad = [a for a in action.argv if "split-dwarf" in a or "random-seed" in a or "coverage" in a]
            asserts.equals(env, [], bad, mnemonic + " argv")
    return analysistest.end(env)

dropped_flags_test = analysistest.make(
    _dropped_flags_test_impl,
    config_settings = {_COPT: ["-gsplit-dwarf", "-frandom-seed=x", "--coverage"]},
)

def _quoting_test_impl(ctx):
    env = analysistest.begin(ctx)
    _check(env, plan_has = ["-Xcompiler=-Wa\\,--noexecstack", "-Xcompiler='-DGREETING=\"hi there\"'"])
    return analysistest.end(env)

quoting_test = analysistest.make(
    _quoting_test_impl,
    config_settings = {_COPT: ["-Wa,--noexecstack", "-DGREETING=\"hi there\""]},
)

def _unstaged_gets_toolchain_flags_test_impl(ctx):
    env = analysistest.begin(ctx)
    compile = only_action(env, "CudaCompile")
    if compile:
        assert_argv_contains(env, compile, ["-Xcompiler=-Wextra", "-Xcompiler=-fstack-protector", "-std=c++17"])
    return analysistest.end(env)

unstaged_gets_toolchain_flags_test = analysistest.make(_unstaged_gets_toolchain_flags_test_impl, config_settings = {_CXXOPT: ["-Wextra"]})

def _device_link_gets_toolchain_flags_test_impl(ctx):
    env = analysistest.begin(ctx)
    plans = [a for a in actions_of(env, "CudaPlan") if "device_link" in a.argv]
    asserts.equals(env, 1, len(plans), "device link plans")
    for plan in plans:
        assert_argv_contains(env, plan, ["-Xcompiler=-Wextra", "-Xcompiler=-fstack-protector"])
    return analysistest.end(env)

device_link_gets_toolchain_flags_test = analysistest.make(_device_link_gets_toolchain_flags_test_impl, config_settings = {_CXXOPT: ["-Wextra"]})

def _device_debug_test_impl(ctx):
    env = analysistest.begin(ctx)
    plan = only_action(env, "CudaPlan")
    if plan:
        if ctx.attr.want:
            assert_argv_contains(env, plan, ["-G"])
        else:
            assert_argv_lacks(env, plan, ["-G"])
    return analysistest.end(env)

_DEBUG_PATTERNS = ["//tests/cc_toolchain:kernel", "//other/..."]

device_debug_test = analysistest.make(
    _device_debug_test_impl,
    config_settings = {_DEVICE_DEBUG: _DEBUG_PATTERNS},
    attrs = {"want": attr.bool()},
)

def _bad_device_debug_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "'tests/cc_toolchain:kernel' is not a target pattern")
    asserts.expect_failure(env, "--@rules_cuda_stages//cuda_rules:device_debug")
    return analysistest.end(env)

bad_device_debug_test = analysistest.make(
    _bad_device_debug_test_impl,
    expect_failure = True,
    config_settings = {_DEVICE_DEBUG: ["tests/cc_toolchain:kernel"]},
)

# Suite ------------------------------------------------------------------------

def host_flags_test_suite(name):
    """The tests above, over the manual targets of tests/cc_toolchain/BUILD.bazel.

    Args:
      name: the test_suite's name.
    """
    test_suite_of(name, {
        "bad_device_debug_test": (bad_device_debug_test, {"target_under_test": ":kernel"}),
        "classify_test": (classify_test, {}),
        "cxxopt_reaches_host_stages_test": (cxxopt_reaches_host_stages_test, {"target_under_test": ":kernel"}),
        "dbg_is_host_debug_info_test": (dbg_is_host_debug_info_test, {"target_under_test": ":kernel"}),
        "device_debug_other_target_test": (device_debug_test, {"target_under_test": ":other", "want": False}),
        "device_debug_patterns_test": (device_debug_patterns_test, {}),
        "device_debug_test": (device_debug_test, {"target_under_test": ":kernel", "want": True}),
        "device_link_gets_toolchain_flags_test": (device_link_gets_toolchain_flags_test, {"target_under_test": ":rdc_link"}),
        "dialect_test": (dialect_test, {}),
        "dropped_flags_test": (dropped_flags_test, {"target_under_test": ":kernel"}),
        "gnu_std_from_cxxopt_test": (gnu_std_from_cxxopt_test, {"target_under_test": ":kernel"}),
        "opt_test": (opt_test, {"target_under_test": ":kernel"}),
        "quoting_test": (quoting_test, {"target_under_test": ":kernel"}),
        "std_from_cxxopt_test": (std_from_cxxopt_test, {"target_under_test": ":kernel"}),
        "target_std_wins_test": (target_std_wins_test, {"target_under_test": ":target_std"}),
        "unstaged_gets_toolchain_flags_test": (unstaged_gets_toolchain_flags_test, {"target_under_test": ":unstaged"}),
        "xcompiler_test": (xcompiler_test, {}),
    })
