"""Helpers imported by sibling_helper_view.py (a multi-file user project): not a bug script."""


def merge_heads(context):
    """(batch, tokens, heads, dim) -> (batch, tokens, heads * dim); assumes a contiguous input."""
    batch, tokens = context.shape[:2]
    return context.view(batch, tokens, -1)  # bug-line: CTG101
