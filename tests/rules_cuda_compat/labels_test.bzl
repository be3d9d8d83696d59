"""One analysis test per label rules_cuda's toolkit repository and `//cuda` package export: each resolves here, with rules_cuda's kind.

The names and kinds below are rules_cuda's own (its toolkit templates of 0.2.x,
0.3 and after, for a local toolkit; its //cuda package), and three that public
projects use with it (`cudart`, `cublas_static`, `nvrtc_builtins`), written down
here as the specification; the hub must have each (docs/migrating.md, "`@cuda`
labels").
"""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts", "unittest")
load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load("@rules_cc//cc/common:cc_info.bzl", "CcInfo")
load("//cuda_rules/private:rules/arch_config.bzl", "rules_cuda_flags_error")  # buildifier: disable=bzl-visibility
load("//cuda_rules/private/repo:library_repository.bzl", "all_hub_names")  # buildifier: disable=bzl-visibility
load("//cuda_rules/private/repo:rules_cuda_names.bzl", "RULES_CUDA_WINDOWS")  # buildifier: disable=bzl-visibility

# rules_cuda's @cuda / @local_cuda names and what each is there: "cc" (a
# cc_library or cc_import), "files" (a filegroup or a file), "setting" (a
# bool_setting). Names that exist on Windows only are RULES_CUDA_WINDOWS.
RULES_CUDA_LABELS = {
    "bin2c": "files",
    "cccl_all_files": "files",
    "cccl_headers": "cc",
    "cccl_license": "files",
    "cicc": "files",
    "compiler_deps": "files",
    "compiler_root": "files",
    "crt": "cc",
    "crt_all_files": "files",
    "crt_headers": "cc",
    "crt_license": "files",
    "cub": "cc",
    "cublas": "cc",
    "cublasLt_so": "cc",
    "cublas_all_files": "files",
    "cublas_headers": "cc",
    "cublas_license": "files",
    "cublas_so": "cc",
    "cublas_static": "cc",
    "cuda": "cc",
    "cuda_all_files": "files",
    "cuda_headers": "cc",
    "cuda_license": "files",
    "cuda_runtime": "cc",
    "cuda_runtime_static": "cc",
    "cuda_so": "cc",
    "cuda_stub": "cc",
    "cudadevrt_a": "cc",
    "cudart_all_files": "files",
    "cudart_headers": "cc",
    "cudart_license": "files",
    "cudart": "cc",
    "cudart_so": "cc",
    "cufft": "cc",
    "cufft_all_files": "files",
    "cufft_headers": "cc",
    "cufft_license": "files",
    "cufft_so": "cc",
    "cufft_static": "cc",
    "cufft_static_a": "cc",
    "cufft_static_nocallback": "cc",
    "cufft_static_nocallback_a": "cc",
    "cufftw_so": "cc",
    "cufftw_static": "cc",
    "cufftw_static_a": "cc",
    "cufile": "cc",
    "cufile_all_files": "files",
    "cufile_headers": "cc",
    "cufile_license": "files",
    "cufile_rdma_so": "cc",
    "cufile_so": "cc",
    "culibos_a": "cc",
    "culibos_all_files": "files",
    "culibos_headers": "cc",
    "culibos_license": "files",
    "cupti": "cc",
    "cupti_all_files": "files",
    "cupti_headers": "cc",
    "cupti_license": "files",
    "cupti_so": "cc",
    "curand": "cc",
    "curand_all_files": "files",
    "curand_headers": "cc",
    "curand_license": "files",
    "curand_so": "cc",
    "cusolver": "cc",
    "cusolver_all_files": "files",
    "cusolver_headers": "cc",
    "cusolver_license": "files",
    "cusolver_so": "cc",
    "cusparse": "cc",
    "cusparse_all_files": "files",
    "cusparse_headers": "cc",
    "cusparse_license": "files",
    "cusparse_so": "cc",
    "fatbinary": "files",
    "libcudacxx": "cc",
    "libdevice": "files",
    "libdevice.10.bc": "files",
    "libnvToolsExt_so": "cc",
    "libnvtx3interop_so": "cc",
    "link.stub": "files",
    "no_cuda_runtime": "cc",
    "npp": "cc",
    "npp_all_files": "files",
    "npp_headers": "cc",
    "npp_license": "files",
    "nppc": "cc",
    "nppc_so": "cc",
    "nppi": "cc",
    "nppial": "cc",
    "nppial_so": "cc",
    "nppicc": "cc",
    "nppicc_so": "cc",
    "nppidei": "cc",
    "nppidei_so": "cc",
    "nppif": "cc",
    "nppif_so": "cc",
    "nppig": "cc",
    "nppig_so": "cc",
    "nppim": "cc",
    "nppim_so": "cc",
    "nppist": "cc",
    "nppist_so": "cc",
    "nppisu": "cc",
    "nppisu_so": "cc",
    "nppitc": "cc",
    "nppitc_so": "cc",
    "npps": "cc",
    "npps_so": "cc",
    "nvJitLink": "cc",
    "nvJitLink_so": "cc",
    "nvJitLink_static": "cc",
    "nvJitLink_static_a": "cc",
    "nvcc": "files",
    "nvcc_all_files": "files",
    "nvcc_headers": "cc",
    "nvcc_license": "files",
    "nvidia-ml_so": "cc",
    "nvjitlink": "cc",
    "nvjitlink_all_files": "files",
    "nvjitlink_headers": "cc",
    "nvjitlink_license": "files",
    "nvjitlink_static": "cc",
    "nvjpeg": "cc",
    "nvjpeg_all_files": "files",
    "nvjpeg_headers": "cc",
    "nvjpeg_license": "files",
    "nvjpeg_so": "cc",
    "nvjpeg_static": "cc",
    "nvjpeg_static_a": "cc",
    "nvlink": "files",
    "nvml": "cc",
    "nvml_all_files": "files",
    "nvml_headers": "cc",
    "nvml_license": "files",
    "nvperf_host": "cc",
    "nvperf_host_so": "cc",
    "nvperf_target": "cc",
    "nvperf_target_so": "cc",
    "nvptxcompiler": "cc",
    "nvptxcompiler_so": "cc",
    "nvrtc": "cc",
    "nvrtc_all_files": "files",
    "nvrtc_builtins": "cc",
    "nvrtc_headers": "cc",
    "nvrtc_license": "files",
    "nvrtc_so": "cc",
    "nvtx": "cc",
    "nvtx3": "cc",
    "nvtx_all_files": "files",
    "nvtx_headers": "cc",
    "nvtx_license": "files",
    "nvtx_so": "cc",
    "nvvm_all_files": "files",
    "nvvm_headers": "cc",
    "nvvm_license": "files",
    "ptxas": "files",
    "thrust": "cc",
    "valid_toolchain_found": "setting",
}

# What NVIDIA's wheels (the default toolkit, 13.0) do not ship: these fail
# analysis there, naming the label and the fix.
MISSING_FROM_WHEELS = [
    "cublas_static",
    "culibos_a",
    "cufft_static",
    "cufft_static_a",
    "cufft_static_nocallback",
    "cufft_static_nocallback_a",
    "cufftw_static",
    "cufftw_static_a",
    "libnvToolsExt_so",
    "nvJitLink_static",
    "nvJitLink_static_a",
    "nvjitlink_static",
    "nvjpeg_static",
    "nvjpeg_static_a",
    "nvtx_so",
    "nvvm_headers",
]

# License files: NVIDIA's wheels unpack without them (their licenses are in
# the wheels' metadata), so these groups are empty there; so is libculibos's.
_MAY_BE_EMPTY = [name for name in RULES_CUDA_LABELS if name.endswith("_license")] + ["culibos_all_files"]

# Names that are one file of the toolkit (an alias of a source file, as in
# rules_cuda): analysed through a filegroup, since a test's target under test
# must be a rule.
_SINGLE_FILES = ["bin2c", "cicc", "compiler_root", "fatbinary", "libdevice.10.bc", "link.stub", "nvcc", "nvlink", "ptxas"]

def _label_test_impl(ctx):
    env = analysistest.begin(ctx)
    target = analysistest.target_under_test(env)
    kind = ctx.attr.kind
    if kind == "cc":
        asserts.true(env, CcInfo in target, "{}: a C++ library (CcInfo), as in rules_cuda".format(target.label))
    elif kind == "files":
        files = target[DefaultInfo].files.to_list()
        asserts.true(env, files or ctx.attr.may_be_empty, "{}: files, as in rules_cuda; got none".format(target.label))
    elif kind == "setting":
        asserts.true(env, BuildSettingInfo in target, "{}: a setting for config_setting flag_values".format(target.label))
        if BuildSettingInfo in target:
            asserts.equals(env, True, target[BuildSettingInfo].value, "the default toolkit is there")
    return analysistest.end(env)

label_test = analysistest.make(_label_test_impl, attrs = {
    "kind": attr.string(),
    "may_be_empty": attr.bool(),
})

def _missing_label_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "rules_cuda_stages: @cuda//:")
    asserts.expect_failure(env, "is not available in")
    asserts.expect_failure(env, "Fix:")
    return analysistest.end(env)

missing_label_test = analysistest.make(_missing_label_test_impl, expect_failure = True)

def _names_test_impl(ctx):
    env = unittest.begin(ctx)
    names = all_hub_names()
    for name in RULES_CUDA_LABELS.keys() + RULES_CUDA_WINDOWS:
        asserts.true(env, name in names, "rules_cuda's @cuda//:{} is missing from the hub".format(name))
    return unittest.end(env)

names_test = unittest.make(_names_test_impl)

def _flags_error_test_impl(ctx):
    env = unittest.begin(ctx)
    asserts.equals(env, None, rules_cuda_flags_error("", "13.0", "", "sbsa"), "nothing set")
    asserts.equals(env, None, rules_cuda_flags_error("13.0.2", "13.0", "", "sbsa"), "rules_cuda's version of the build's toolkit")
    asserts.equals(env, None, rules_cuda_flags_error("12.6.3", "local", "", "sbsa"), "the local toolkit is whatever is installed")
    error = rules_cuda_flags_error("12.6.3", "13.0", "", "sbsa")
    for part in ["version=12.6.3", "toolkit is 13.0", "Fix: --@rules_cuda_stages//cuda_rules:toolkit=12.6", "cuda.redist(version = \"12.6.3\""]:
        asserts.true(env, part in (error or ""), "{} not in: {}".format(part, error))
    error = rules_cuda_flags_error("", "13.0", "linux-sbsa", "sbsa")
    asserts.true(env, "exec_platform=linux-sbsa" in (error or "") and "Fix: drop the flag" in (error or ""), str(error))
    error = rules_cuda_flags_error("", "13.0", "", "aarch64")
    asserts.true(env, "Tegra" in (error or "") and "toolkit=local" in (error or ""), str(error))
    return unittest.end(env)

flags_error_test = unittest.make(_flags_error_test_impl)

def _version_mismatch_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "--@rules_cuda_stages//cuda_rules:version=12.6.3 is rules_cuda's choice of the CUDA version")
    return analysistest.end(env)

version_mismatch_test = analysistest.make(
    _version_mismatch_test_impl,
    expect_failure = True,
    config_settings = {str(Label("//cuda_rules:version")): "12.6.3"},
)

def _version_match_test_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.true(env, CcInfo in analysistest.target_under_test(env))
    return analysistest.end(env)

version_match_test = analysistest.make(
    _version_match_test_impl,
    config_settings = {str(Label("//cuda_rules:version")): "13.0.2"},
)

def labels_test_suite(name, cuda_target):
    """One analysis test per rules_cuda label of @cuda, and the checks of rules_cuda's other flags.

    Args:
      name: the test_suite's name.
      cuda_target: a cuda_library to analyse under rules_cuda's flags.
    """
    tests = []
    for label, kind in sorted(RULES_CUDA_LABELS.items()):
        test = "{}_{}".format(name, label.replace(".", "_").replace("-", "_"))
        if label in MISSING_FROM_WHEELS:
            missing_label_test(name = test, target_under_test = "@cuda//:" + label)
        elif label in _SINGLE_FILES:
            native.filegroup(name = test + "_file", srcs = ["@cuda//:" + label], tags = ["manual"])
            label_test(name = test, target_under_test = ":" + test + "_file", kind = kind)
        else:
            label_test(name = test, target_under_test = "@cuda//:" + label, kind = kind, may_be_empty = label in _MAY_BE_EMPTY)
        tests.append(test)
    unittest.suite(name + "_names", names_test, flags_error_test)
    version_mismatch_test(name = name + "_version_mismatch", target_under_test = cuda_target)
    version_match_test(name = name + "_version_match", target_under_test = cuda_target)
    native.test_suite(
        name = name,
        tests = tests + [name + "_names", name + "_version_mismatch", name + "_version_match"],
    )
