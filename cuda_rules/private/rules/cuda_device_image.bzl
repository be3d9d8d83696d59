"""cuda_device_image: one source's fatbinary, cubin or PTX at a chosen name, for driver-API programs (cuModuleLoad)."""

load("//cuda_rules/private:labels.bzl", "display_label")
load("//cuda_rules/private:providers.bzl", "CudaInfo", "CudaObjectsInfo")
load("//cuda_rules/private:requires_cuda.bzl", "with_requires_cuda")

visibility(["//cuda_rules/...", "//tests/..."])

_EXTENSIONS = {"cubin": "cubin", "fatbin": "fatbin", "ptx": "ptx"}

def _fail(ctx, message, fix):
    fail("{}: {} Fix: {}".format(display_label(ctx.label), message, fix))

def _image_of(ctx, info):
    lib = display_label(ctx.attr.library.label)
    if not info.images:
        _fail(
            ctx,
            ("{} has no CUDA source compiled in stages, so no separate fatbinary, cubin or PTX file: with staged = False " +
             "they exist only inside its objects.").format(lib),
            "set staged = True on {} (or leave it unset), or point `library` at a staged cuda_library.".format(lib),
        )
    sources = [i.src for i in info.images]
    if ctx.file.src:
        found = [i for i in info.images if i.src == ctx.file.src]
        if not found:
            _fail(
                ctx,
                "`src` {} is not one of the CUDA sources of {} ({}).".format(
                    ctx.file.src.short_path,
                    lib,
                    ", ".join([s.short_path for s in sources]),
                ),
                "name one of them in `src`.",
            )
        return found[0]
    if len(info.images) > 1:
        _fail(
            ctx,
            "{} has {} CUDA sources ({}), each its own module, and cuModuleLoad loads one.".format(
                lib,
                len(sources),
                ", ".join([s.short_path for s in sources]),
            ),
            "name the source in `src` (e.g. src = \"{}\"), or give each module a cuda_device_image.".format(sources[0].basename),
        )
    return info.images[0]

def _cuda_device_image_impl(ctx):
    library = ctx.attr.library
    lib = display_label(library.label)
    if CudaObjectsInfo in library or library[CudaInfo].rdc:
        _fail(
            ctx,
            ("{} compiles relocatable device code (rdc = True, or cuda_objects), which the driver cannot load " +
             "before a device link.").format(lib),
            "load the code of a cuda_library without rdc (a module that calls no __device__ code of other files), " +
            "or link the relocatable cubins at run time (cuLinkCreate / nvJitLink).",
        )
    image = _image_of(ctx, library[CudaInfo])
    kind = ctx.attr.kind
    arch = ctx.attr.arch
    if kind == "fatbin":
        if arch:
            _fail(ctx, "arch = \"{}\" with kind = \"fatbin\": a fatbinary holds every arch {} compiles.".format(arch, lib), "remove `arch`, or choose kind = \"cubin\" (sm_NN) or \"ptx\" (compute_NN).")
        file = image.fatbin
    else:
        images = image.cubins if kind == "cubin" else image.ptx
        example = "sm_90" if kind == "cubin" else "compute_90"
        if arch not in images:
            _fail(
                ctx,
                "{} of {} for {} {}: it compiles {} {}.".format(
                    "no arch given" if not arch else "no " + kind,
                    image.src.short_path,
                    lib,
                    "(kind = \"{}\" needs `arch`)".format(kind) if not arch else "for " + arch,
                    "the " + ("real" if kind == "cubin" else "virtual") + " archs",
                    ", ".join(sorted(images.keys())) or "none",
                ),
                "set arch to one of them (e.g. arch = \"{}\"), or add it to the archs {} compiles (its `archs` attribute or --@rules_cuda_stages//cuda_rules:archs).".format(
                    sorted(images.keys())[-1] if images else example,
                    lib,
                ),
            )
        file = images[arch]
    out = ctx.actions.declare_file(ctx.attr.out or "{}.{}".format(ctx.label.name, _EXTENSIONS[kind]))
    ctx.actions.symlink(
        output = out,
        target_file = file,
        progress_message = "Placing the {} of {} at %{{output}}".format(kind, image.src.short_path),
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

cuda_device_image_rule = rule(
    implementation = _cuda_device_image_impl,
    doc = """One CUDA source's device code as a file of its own, for programs that load it with the driver API.

The fatbinary (every arch the library compiles: cubins and embedded PTX), or one arch's cubin or
PTX, of a source of a staged cuda_library without rdc, at `out` in this package. In a binary's
`data` it is in the binary's runfiles, where cuModuleLoad (or cuModuleLoadData) loads it:

    cuda_library(name = "kernels", srcs = ["kernels.cu"])
    cuda_device_image(name = "kernels_fatbin", library = ":kernels", out = "kernels.fatbin")
    cc_binary(
        name = "app",
        srcs = ["app.cc"],                  # cuModuleLoad(<runfiles dir>/argv[1])
        args = ["$(rlocationpath :kernels_fatbin)"],
        data = [":kernels_fatbin"],
        deps = ["@cuda//:cuda_driver"],
    )

The file is the staged compile's own output (CudaEmbedFatbin, CudaPtxas, CudaCicc), reused from the
cache like every stage.""",
    attrs = {
        "library": attr.label(
            mandatory = True,
            providers = [CudaInfo],
            doc = "A cuda_library (staged, without rdc) whose source's device code this is.",
        ),
        "src": attr.label(
            allow_single_file = True,
            doc = "Which of the library's CUDA sources (each source is one module); may be left out when it has one.",
        ),
        "kind": attr.string(
            default = "fatbin",
            values = ["fatbin", "cubin", "ptx"],
            doc = "fatbin: the fatbinary (cubins and embedded PTX of every arch, the driver picks); cubin: one real " +
                  "arch's cubin (`arch = \"sm_90\"`); ptx: one virtual arch's PTX (`arch = \"compute_90\"`, JIT-compiled " +
                  "by the driver).",
        ),
        "arch": attr.string(doc = "For kind cubin (sm_NN) or ptx (compute_NN): which arch; it must be one the library compiles."),
        "out": attr.string(doc = "The file's path in this package (and so in runfiles), e.g. \"kernels.fatbin\" or " +
                                 "\"modules/saxpy.cubin\"; default <name>.fatbin / .cubin / .ptx."),
    },
    provides = [DefaultInfo],
)

def cuda_device_image(name, target_compatible_with = None, **kwargs):
    """One CUDA source's fatbinary, cubin or PTX at a chosen name, for cuModuleLoad in a driver-API program.

    The rule and its attributes: [docs/api/rules.md](rules.md#cuda_device_image).

    Args:
      name: the target's name.
      target_compatible_with: as for any rule; requires_cuda() is added.
      **kwargs: the rule's attributes (library, src, kind, arch, out) and the common ones.
    """
    cuda_device_image_rule(
        name = name,
        target_compatible_with = with_requires_cuda(target_compatible_with),
        **kwargs
    )
