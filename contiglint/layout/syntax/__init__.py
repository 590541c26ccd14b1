"""What the syntax of a module says before any flow analysis: its shared walk (`index.py`),
its imports and the qualified names they give (`names.py`), its compiled kernels
(`compiled.py`) and what its loops change (`loops.py`). Read by the learned contracts, the flow
pass, the sinks and the rules alike."""
