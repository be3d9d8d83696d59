"""java_jar_binary: runs a deploy jar with the exec platform's Java runtime.

Stardoc's own renderer is a java_binary, which needs Bazel's Java build tools
(remote_java_tools, downloaded); the renderer ships as a deploy jar, so the Java
runtime toolchain alone runs it, offline too.
"""

_RUNTIME = "@bazel_tools//tools/jdk:runtime_toolchain_type"

def _runfiles_path(ctx, short_path):
    if short_path.startswith("../"):
        return short_path[3:]
    return ctx.workspace_name + "/" + short_path

def _java_jar_binary_impl(ctx):
    runtime = ctx.toolchains[_RUNTIME].java_runtime
    launcher = ctx.actions.declare_file(ctx.label.name)

    # Both run from the launcher's runfiles tree, where an action that runs
    # the launcher as its tool finds them.
    ctx.actions.write(
        launcher,
        "#!/bin/sh\nr=\"$0.runfiles\"\nexec \"$r/%s\" -jar \"$r/%s\" \"$@\"\n" % (
            _runfiles_path(ctx, runtime.java_executable_runfiles_path),
            _runfiles_path(ctx, ctx.file.jar.short_path),
        ),
        is_executable = True,
    )
    return [DefaultInfo(
        executable = launcher,
        runfiles = ctx.runfiles(files = [ctx.file.jar], transitive_files = runtime.files),
    )]

java_jar_binary = rule(
    implementation = _java_jar_binary_impl,
    doc = "An executable that runs `jar` (a deploy jar with a Main-Class) under the Java runtime toolchain; for use as an action's tool.",
    attrs = {"jar": attr.label(allow_single_file = [".jar"], mandatory = True)},
    executable = True,
    toolchains = [_RUNTIME],
)
