"""What the syntax of a module says before any flow analysis: its shared walk (`index.py`),
its imports and the qualified names they give (`names.py`), and its compiled kernels
(`compiled.py`). Read by the learned contracts, the flow pass and the rules alike."""
