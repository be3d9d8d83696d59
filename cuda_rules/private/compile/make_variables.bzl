"""Make variables and $(location ...) in a target's options and defines, expanded as cc_library expands them.

cc_library (Bazel's cc_helper.bzl, `_expand`, `_tokenize`,
`_defines_attribute`) does, for each string of `copts` and of `defines` /
`local_defines`:

1. `$$` becomes `$`; `$(NAME)` becomes the value of Make variable NAME (the
   target's `toolchains`, the configuration's: `$(GENDIR)`, `$(BINDIR)`,
   `$(COMPILATION_MODE)`, ..., and the C++ toolchain's: `$(CC)`, `$(AR)`,
   ...); `$(location LABEL)` and its kin (`execpath`, `rootpath`, `locations`,
   ...) become paths of a target in `data` (copts) or in `data` and `deps`
   (defines); an unknown variable or function fails analysis naming it;
2. the result is split like a Bourne shell splits words (copts: unless the
   `no_copts_tokenization` feature is on); a define must be exactly one word.

These rules do the same for `copts`, `host_copts` and `ptxasopts` (options)
and `defines` and `local_defines` (rules_cuda's `host_*` names included), so
`$(GENDIR)` and `$$` mean here what they mean in a cc_library, and what a
cc_library rejects fails here too, with the same kind of message.
"""

load("@rules_cc//cc/common:cc_common.bzl", "cc_common")

visibility(["//cuda_rules/...", "//tests/..."])

# The C++ toolchain's Make variables cc_library adds to the configuration's
# (cc_helper.get_toolchain_global_make_variables), from the toolchain's public
# fields. $(CC_FLAGS) is not among them: a target that lists
# @bazel_tools//tools/cpp:current_cc_toolchain in `toolchains` gets it, as
# every rule does.
def toolchain_variables(cc_toolchain):
    """{name: value} of the C++ toolchain's Make variables ($(CC), $(AR), ...).

    Args:
      cc_toolchain: CcToolchainInfo.

    Returns:
      A dict.
    """
    out = {}
    for name, field in [
        ("CC", "compiler_executable"),
        ("AR", "ar_executable"),
        ("NM", "nm_executable"),
        ("LD", "ld_executable"),
        ("STRIP", "strip_executable"),
        ("OBJCOPY", "objcopy_executable"),
        ("GCOVTOOL", "gcov_executable"),
        ("C_COMPILER", "compiler"),
    ]:
        value = getattr(cc_toolchain, field, None)
        if value:
            out[name] = value
    libc = getattr(cc_toolchain, "libc", None)
    if libc:
        out["GLIBC_VERSION"] = libc[len("glibc-"):] if libc.startswith("glibc-") else libc
    return out

def _lookup(ctx, variables, name):
    value = variables.get(name)
    if value == None:
        value = ctx.var.get(name)
    if value == None:
        fail("{}: $({}) not defined".format(ctx.label, name))
    return value

def _expand_variable(ctx, variables, expression, targets):
    """The value of the inside of one $(...): a location function, or a variable (nested ones expanded)."""
    if " " in expression:
        # $(location //x), $(execpath ...), ...: Bazel's own expansion, which
        # fails for a label that is not a prerequisite or a function it lacks.
        return ctx.expand_location("$({})".format(expression), targets = targets)
    for _ in range(10):
        expression = _lookup(ctx, variables, expression)
        if len(expression) >= 3 and expression.startswith("$(") and expression.endswith(")"):
            expression = expression[2:-1]
            continue
        return expression
    fail("{}: potentially unbounded recursion during expansion of {}".format(ctx.label, expression))

def expand(ctx, expression, variables, targets):
    """`expression` with $$ and every $(...) expanded, as cc_library's `_expand`.

    Args:
      ctx: the rule context (ctx.var, ctx.expand_location, the label for messages).
      expression: a string of an attribute.
      variables: {name: value} besides ctx.var (the C++ toolchain's).
      targets: the targets $(location ...) may name.

    Returns:
      The expanded string.
    """
    out = []
    n = len(expression)
    i = 0
    last = 0
    for _ in range(n):
        if i >= n:
            break
        if expression[i] != "$":
            i += 1
            continue
        i += 1
        if i < n and expression[i] == "$":
            out.append(expression[last:i])  # "$$" -> "$"
            i += 1
            last = i
        elif i < n and expression[i] == "(":
            end = expression.find(")", i + 1)
            if end != -1:
                out.append(expression[last:i - 1])
                out.append(_expand_variable(ctx, variables, expression[i + 1:end], targets))
                i = end + 1
                last = i
    out.append(expression[last:])
    return "".join(out)

def tokenize(ctx, attr_name, text):
    """Splits `text` into words as a Bourne shell does (cc_library's `_tokenize`): quotes, backslashes, blanks.

    Args:
      ctx: the rule context (for messages).
      attr_name: the attribute, for messages.
      text: the string.

    Returns:
      A list of strings.
    """
    words = []
    word = []
    forced = False
    quote = ""
    escaped = False
    for c in text.elems():
        if escaped:
            if quote == "\"" and c != "\\" and c != "\"":
                word.append("\\")
            word.append(c)
            escaped = False
        elif quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote == "\"":
                escaped = True
            else:
                word.append(c)
        elif c == "'" or c == "\"":
            quote = c
            forced = True
        elif c == " " or c == "\t":
            if forced or word:
                words.append("".join(word))
                word = []
                forced = False
        elif c == "\\":
            escaped = True
        else:
            word.append(c)
    if escaped:
        fail("{}: in {}: backslash at the end of the string: {}".format(ctx.label, attr_name, text))
    if quote:
        fail("{}: in {}: unterminated quotation at the end of the string: {}".format(ctx.label, attr_name, text))
    if forced or word:
        words.append("".join(word))
    return words

def expand_options(ctx, attr_name, values, *, variables, targets, tokenization = True):
    """A list of option strings expanded and, as cc_library does for copts, split into words.

    Args:
      ctx: the rule context.
      attr_name: the attribute, for messages.
      values: list of strings.
      variables: {name: value} besides ctx.var.
      targets: the targets $(location ...) may name.
      tokenization: whether to split into words (off with the `no_copts_tokenization` feature).

    Returns:
      A list of strings.
    """
    out = []
    for value in values:
        expanded = expand(ctx, value, variables, targets)
        if tokenization:
            out.extend(tokenize(ctx, attr_name, expanded))
        else:
            out.append(expanded)
    return out

def expand_defines(ctx, attr_name, values, *, variables, targets):
    """A list of defines expanded; each must be one word (cc_library's rule), else analysis fails.

    Args:
      ctx: the rule context.
      attr_name: the attribute, for messages.
      values: list of strings.
      variables: {name: value} besides ctx.var.
      targets: the targets $(location ...) may name.

    Returns:
      A list of strings.
    """
    out = []
    for value in values:
        words = tokenize(ctx, attr_name, expand(ctx, value, variables, targets))
        if len(words) == 0:
            fail("{}: in {} attribute: empty definition not allowed. Fix: remove it.".format(ctx.label, attr_name))
        if len(words) > 1:
            fail(("{}: in {} attribute: definition '{}' contains too many tokens (found {}, expecting exactly one). " +
                  "Fix: quote the value, e.g. 'NAME=\"a b\"'.").format(ctx.label, attr_name, value, len(words)))
        out.append(words[0])
    return out

def expanded_attributes(ctx, cc_toolchain, feature_configuration):
    """The target's copts, host_copts, ptxasopts, defines and local_defines, expanded.

    rules_cuda's names (host_defines, host_local_defines) are merged into
    defines and local_defines; $(location) may name `data` (copts, host_copts,
    ptxasopts) or `data` and `deps` (defines), as in cc_library.

    Args:
      ctx: the rule context of a rule with compile_attrs().
      cc_toolchain: CcToolchainInfo.
      feature_configuration: the target's feature configuration.

    Returns:
      struct(copts, host_copts, ptxasopts, defines, local_defines): lists of strings.
    """
    variables = toolchain_variables(cc_toolchain)
    data = getattr(ctx.attr, "data", [])
    define_targets = data + ctx.attr.deps
    tokenization = not (
        "no_copts_tokenization" in ctx.features or
        cc_common.is_enabled(feature_configuration = feature_configuration, feature_name = "no_copts_tokenization")
    )

    def options(name):
        return expand_options(ctx, name, getattr(ctx.attr, name), variables = variables, targets = data, tokenization = tokenization)

    def defines(name, alias):
        return (expand_defines(ctx, name, getattr(ctx.attr, name), variables = variables, targets = define_targets) +
                expand_defines(ctx, alias, getattr(ctx.attr, alias), variables = variables, targets = define_targets))

    return struct(
        copts = options("copts"),
        host_copts = options("host_copts"),
        ptxasopts = options("ptxasopts"),
        defines = defines("defines", "host_defines"),
        local_defines = defines("local_defines", "host_local_defines"),
    )
