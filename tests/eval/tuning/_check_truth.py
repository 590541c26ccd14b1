"""Ground truth for the tuning cases, by running them under torch.

These cases were written while the model was being improved, for the patterns whose misses
on the general blind set showed a gap (fft spectra, properties, functools.partial, module
hooks, nn parameters, subclass attributes, in-place activations, as_strided windows, adaptive
pools with literal output sizes, broadcast masks times transposed tensors), with a
clean look-alike for most: they are tuned on, unlike tests/eval/general/. Each case is checked
exactly as the blind set's checker checks its own (`tests/eval/general/_check_truth.py`):
a CTG101 hazard raises the view error at its marked line, a CTG108 hazard raises the overlap
error there or writes a tensor that overlaps, a clean case runs.

Usage: python tests/eval/tuning/_check_truth.py [SUBSTRING ...]
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "general_check_truth", os.path.join(HERE, os.pardir, "general", "_check_truth.py"))
general = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(general)


def main():
    files = [os.path.join(HERE, d, f) for d in sorted(os.listdir(HERE))
             if d.startswith("ctg") and os.path.isdir(os.path.join(HERE, d))
             for f in sorted(os.listdir(os.path.join(HERE, d))) if f.endswith(".py")]
    files = [f for f in files if not sys.argv[1:] or any(o in f for o in sys.argv[1:])]
    failures = []
    for index, path in enumerate(files):
        good, why = general.check_case(path, index)
        print(f"{'PASS' if good else 'FAIL'}  {os.path.relpath(path, HERE)}: {why}")
        if not good:
            failures.append(path)
    print(f"\ncases={len(files)} verified={len(files) - len(failures)} failed={len(failures)}")
    return 1 if failures or not files else 0


if __name__ == "__main__":
    sys.exit(main())
