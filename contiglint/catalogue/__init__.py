"""Facts about torch and its ecosystem that the static rules and the runtime watcher share.

Data, not code: `collectives.py` says what each `torch.distributed` op does with a
non-contiguous tensor on each backend, `contracts.py` which library functions and extension
boundaries require contiguous tensors. Both `contiglint.rules` and `contiglint.runtime` read
these tables, so a static finding and a runtime report classify an op the same way.
"""
