"""Unit tests of arch-string parsing (archs.bzl)."""

load("@bazel_skylib//lib:unittest.bzl", "asserts", "unittest")

# Private files, loaded by tests on purpose: their visibility() allows //tests/...
# buildifier: disable=bzl-visibility
load("//cuda_rules/private:archs.bzl", "device_link_archs", "gencode_flags", "parse_archs")
load("//tests/common:suite.bzl", "test_suite_of")

# buildifier: disable=bzl-visibility

_WHERE = "the test's spec"

def _as_tuples(archs):
    """A parsed arch set as [(virtual, reals, ptx)], easy to compare."""
    return [(v.virtual, v.reals, v.ptx) for v in archs.virtuals]

def _parse_ok(env, spec, expected):
    archs = parse_archs(spec, _WHERE)
    asserts.equals(env, None, archs.error, "parse_archs({}) failed".format(repr(spec)))
    asserts.equals(env, expected, _as_tuples(archs), "parse_archs({})".format(repr(spec)))
    return archs

# parse_archs ------------------------------------------------------------------

def _parse_archs_lto_test_impl(ctx):
    env = unittest.begin(ctx)
    for spec in ["lto_80,lto_90", "compute_90:lto_90;compute_80:lto_80"]:
        archs = parse_archs(spec, _WHERE)
        asserts.equals(env, None, archs.error, spec)
        asserts.equals(env, [("compute_80", [], False, True), ("compute_90", [], False, True)], [(v.virtual, v.reals, v.ptx, v.lto) for v in archs.virtuals], spec)
        asserts.equals(env, ["-gencode=arch=compute_80,code=[lto_80]", "-gencode=arch=compute_90,code=[lto_90]"], gencode_flags(archs), spec)
        asserts.equals(env, ["sm_80", "sm_90"], device_link_archs(archs), spec)
    asserts.equals(env, ["sm_80", "sm_86", "sm_90"], device_link_archs(parse_archs("sm_80,sm_86,lto_90", _WHERE)))
    return unittest.end(env)

parse_archs_lto_test = unittest.make(_parse_archs_lto_test_impl)

def _parse_archs_single_real_test_impl(ctx):
    env = unittest.begin(ctx)
    _parse_ok(env, "sm_80", [("compute_80", ["sm_80"], False)])
    return unittest.end(env)

parse_archs_single_real_test = unittest.make(_parse_archs_single_real_test_impl)

def _parse_archs_reals_and_virtuals_test_impl(ctx):
    env = unittest.begin(ctx)
    _parse_ok(env, "sm_80,sm_90a,compute_90", [
        ("compute_80", ["sm_80"], False),
        ("compute_90", [], True),
        ("compute_90a", ["sm_90a"], False),
    ])

    # Sorted by arch, whatever the order written.
    _parse_ok(env, "compute_90,sm_90a,sm_80", [
        ("compute_80", ["sm_80"], False),
        ("compute_90", [], True),
        ("compute_90a", ["sm_90a"], False),
    ])

    # Reals of one virtual sorted, duplicates dropped, spaces ignored.
    _parse_ok(env, "sm_90, sm_90, compute_90", [("compute_90", ["sm_90"], True)])
    return unittest.end(env)

parse_archs_reals_and_virtuals_test = unittest.make(_parse_archs_reals_and_virtuals_test_impl)

def _parse_archs_rules_cuda_form_test_impl(ctx):
    env = unittest.begin(ctx)
    _parse_ok(env, "compute_80:sm_80,sm_86,compute_80;compute_90:sm_90", [
        ("compute_80", ["sm_80", "sm_86"], True),
        ("compute_90", ["sm_90"], False),
    ])
    _parse_ok(env, "compute_90:compute_90;compute_80:sm_86,sm_80", [
        ("compute_80", ["sm_80", "sm_86"], False),
        ("compute_90", [], True),
    ])

    # rules_cuda's ';' groups without a virtual arch: each from its lowest arch.
    _parse_ok(env, "sm_80;sm_86", [
        ("compute_80", ["sm_80"], False),
        ("compute_86", ["sm_86"], False),
    ])
    _parse_ok(env, "sm_70,sm_75;sm_86,sm_80", [
        ("compute_70", ["sm_70", "sm_75"], False),
        ("compute_80", ["sm_80", "sm_86"], False),
    ])
    _parse_ok(env, "compute_80:sm_80;sm_90,compute_90", [
        ("compute_80", ["sm_80"], False),
        ("compute_90", ["sm_90"], True),
    ])
    archs = parse_archs("sm_8x;sm_90", _WHERE)
    asserts.true(env, archs.error != None and "'sm_8x'" in archs.error and "accepted forms" in archs.error, str(archs.error))
    return unittest.end(env)

parse_archs_rules_cuda_form_test = unittest.make(_parse_archs_rules_cuda_form_test_impl)

def _parse_archs_errors_test_impl(ctx):
    env = unittest.begin(ctx)
    for spec in [
        "sm_8",  # one digit
        "sm_8x",
        "sm_49",  # below 50
        "gfx90a",  # not an NVIDIA arch
        "compute_90:sm_80",  # a real arch below its virtual
        "compute_90a:sm_100a",  # arch-specific code needs its own virtual arch
        "compute_90:sm_90a",  # likewise
        "compute_90a:sm_90",  # sm_90 cannot be built from compute_90a
        "sm_80:sm_80",  # a real arch before ':'
        "compute_80:compute_90",  # PTX of another virtual
        "compute_80:",
        "compute_90:lto_80",  # LTO IR of another virtual
        "sm_90,lto_90",  # LTO and code from the same virtual arch
        "lto_9",
        "",
        " ",
    ]:
        archs = parse_archs(spec, _WHERE)
        asserts.true(env, archs.error != None, "parse_archs({}) gave no error".format(repr(spec)))
        if archs.error != None:
            asserts.true(
                env,
                "accepted forms" in archs.error,
                "error of parse_archs({}) does not list the accepted forms: {}".format(repr(spec), archs.error),
            )
            asserts.true(
                env,
                _WHERE in archs.error,
                "error of parse_archs({}) does not say where the string came from: {}".format(repr(spec), archs.error),
            )
        asserts.equals(env, [], archs.virtuals, "virtuals of parse_archs({})".format(repr(spec)))
    return unittest.end(env)

parse_archs_errors_test = unittest.make(_parse_archs_errors_test_impl)

# Empty entries are errors: "sm_80,," is most likely a typo for a longer list.
def _parse_archs_empty_entries_test_impl(ctx):
    env = unittest.begin(ctx)
    for spec in ["sm_80,,", "compute_80:sm_80;", ",sm_90", "sm_80,,sm_90"]:
        archs = parse_archs(spec, _WHERE)
        asserts.true(env, archs.error != None and "empty arch" in archs.error, "parse_archs({}) must fail: {}".format(repr(spec), archs.error))
        asserts.equals(env, [], archs.virtuals)
    return unittest.end(env)

parse_archs_empty_entries_test = unittest.make(_parse_archs_empty_entries_test_impl)

# gencode_flags ----------------------------------------------------------------

def _gencode_flags_test_impl(ctx):
    env = unittest.begin(ctx)
    asserts.equals(
        env,
        [
            "-gencode=arch=compute_80,code=[sm_80]",
            "-gencode=arch=compute_90,code=[sm_90,compute_90]",
        ],
        gencode_flags(parse_archs("sm_80,sm_90,compute_90", _WHERE)),
    )
    asserts.equals(
        env,
        [
            "-gencode=arch=compute_80,code=[sm_80,sm_86,compute_80]",
            "-gencode=arch=compute_90,code=[sm_90]",
        ],
        gencode_flags(parse_archs("compute_80:sm_80,sm_86,compute_80;compute_90:sm_90", _WHERE)),
    )
    asserts.equals(
        env,
        [
            "-gencode=arch=compute_80,code=[sm_80]",
            "-gencode=arch=compute_90,code=[compute_90]",
            "-gencode=arch=compute_90a,code=[sm_90a]",
        ],
        gencode_flags(parse_archs("sm_80,sm_90a,compute_90", _WHERE)),
    )
    return unittest.end(env)

gencode_flags_test = unittest.make(_gencode_flags_test_impl)

def archs_test_suite(name):
    """Unit tests of parse_archs and gencode_flags, and a test_suite of them.

    Args:
      name: the test_suite's name.
    """
    test_suite_of(name, {
        "gencode_flags_test": (gencode_flags_test, {}),
        "parse_archs_empty_entries_test": (parse_archs_empty_entries_test, {}),
        "parse_archs_errors_test": (parse_archs_errors_test, {}),
        "parse_archs_lto_test": (parse_archs_lto_test, {}),
        "parse_archs_reals_and_virtuals_test": (parse_archs_reals_and_virtuals_test, {}),
        "parse_archs_rules_cuda_form_test": (parse_archs_rules_cuda_form_test, {}),
        "parse_archs_single_real_test": (parse_archs_single_real_test, {}),
    })
