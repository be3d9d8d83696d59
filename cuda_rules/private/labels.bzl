"""Labels as users write them, for messages."""

visibility(["//cuda_rules/..."])

def display_label(label):
    """`//pkg:name` for the main repository's targets (str() gives `@@//pkg:name`), else str(label)."""
    s = str(label)
    return s[2:] if s.startswith("@@//") else s
