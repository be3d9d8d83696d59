"""rules_cuda's if_cuda example macro (its examples/if_cuda/if_cuda.bzl), with the label rewritten."""

def if_cuda(if_true, if_false = []):
    return select({
        "@rules_cuda_stages//cuda_rules:is_enabled": if_true,
        "//conditions:default": if_false,
    })
