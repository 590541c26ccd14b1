"""Learned contracts: which parameters of a function must be contiguous, and why.

A per-function summary pass over a module, run before the flow pass (and, for a project, over
every module first: see `project_pass.py`). A parameter `p` is *required contiguous* when the body,
before any rebinding of `p`:

* rejects other layouts: `assert p.is_contiguous()`, `if not p.is_contiguous(): raise ...`,
  `torch._check(p.is_contiguous(), ...)`, `assert p.stride() == (...)`; a check of only the last
  stride (`p.stride(-1) == 1`) requires unit-stride rows (an *inner* requirement);
* reads its raw memory: `p.data_ptr()` (not as an identity or alignment check),
  `p.untyped_storage()`, `p.numpy().ctypes`, `p.__cuda_array_interface__`, `torch.frombuffer`;
* launches a `@triton.jit` kernel of the module with `p` but without its strides (with one
  stride only: an inner requirement);
* passes `p` to a function that requires it: a function or method of the module (also
  `self.m(p)`, `Cls.m(p)`, static and class methods, `Cls.apply(p)` -> `Cls.forward`, functions
  returned by a factory of the module), a function imported from another module of the
  project, a custom op `torch.ops.ns.op` defined in the project with `torch.library`, or a
  function of a compiled extension module (an *unknown* contract, see catalogue/contracts.py).

`summarize()` finds the local evidence and the calls that pass parameters on; `resolve()` joins
the summaries of all modules of a project until nothing changes, so a wrapper two modules away
from the kernel inherits its contract. Everything here is plain data (picklable, JSON-able), so
summaries travel between worker processes and are cached by content hash.

The package, in the order a run uses it:

* `records.py`: the plain data (requirements, evidence, call edges, a function's contract, a
  module's summary) and its JSON;
* `naming.py`: a file's module name, local names -> qualified names, the functions of a module;
* `summary.py`: the summary pass over one module (`summarize`), with its module-wide parts
  (check functions, extension modules, custom ops);
* `evidence.py`: whether a module's functions can require a layout by their own code; a
  project run makes the function passes of the others only once the project's contracts
  require a function they name (a *partial* summary until then);
* `function_pass.py` and `guards.py`: the pass over one function's body, and its reading of
  layout guards;
* `project.py`: the project-wide join (`resolve`), the resolved contracts a flow pass reads
  (`ProjectContracts`), and one module's view of them (`module_contracts`).

Nothing here imports the flow pass (`layout/flow/`): the flow pass reads these contracts.
"""
