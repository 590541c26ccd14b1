"""The model of PyTorch layout semantics and the dataflow pass that applies it.

The folders follow the pipeline:

* `syntax/`: the front end. `index.py` is the one shared walk of the tree (node lists, parent
  links, node numbers), `names.py` the import map, `compiled.py` the compiled kernels,
  `loops.py` what a loop changes.
* `model/`: what torch does to a layout. Abstract values (`values.py`) and their join
  where paths meet (`path_joins.py`), the geometry of a strided tensor over its base
  (`geometry.py`), symbolic sizes (`sizes.py`), and each op's result layout
  (`op_transfers.py`, built from the catalogue, with `views.py`, `part_views.py`,
  `join_transfers.py`, `literal_transfers.py`, `elementwise.py`, `indexing.py` and
  `transfer.py` computing results); `view_verdict.py` decides whether `.view(shape)` raises,
  `stride_facts.py` the layout of literal strides, `stride_checks.py` a stride test on a known
  layout.
* `contracts/`: learned contracts, which parameters of a function must be contiguous (see its
  package docstring); it imports nothing of `flow/`.
* `flow/`: the interpreter. `program.py` analyses a module and the calls between its functions,
  `frame.py` runs one function body (with the branch, loop and assignment mixins), and the rest
  evaluate its expressions, calls, methods and subscripts.
* `sinks/`: where a layout matters. `records.py` is what the flow pass hands the rules,
  `emission.py` records one, and `contract_calls.py` reports the calls that break a learned
  contract.
"""
