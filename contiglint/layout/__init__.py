"""The model of PyTorch layout semantics and the dataflow pass that applies it.

The folders follow the pipeline:

* `model/`: what torch does to a layout. Abstract values (`values.py`), the geometry of a
  strided tensor over its base (`geometry.py`), symbolic sizes (`sizes.py`), and each op's
  result layout (`ops.py`, built from the catalogue, with `views.py`, `indexing.py` and
  `transfer.py` computing results); `stride_checks.py` decides a stride test on a known layout.
* `flow/`: the interpreter. `program.py` analyses a module and the calls between its functions,
  `frame.py` runs one function body (statements, branches, loops), and the rest evaluate its
  expressions, calls, methods and subscripts; `names.py` and `index.py` are the front end (the
  import map and the one shared walk of the tree).
* `sinks/`: where a layout matters. `records.py` is what the flow pass hands the rules,
  `emission.py` records one, `contracts.py` learns which parameters of a function must be
  contiguous and `contract_calls.py` reports the calls that break such a contract.
"""
