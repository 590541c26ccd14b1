"""The layout model's exam: N random tensor programs run under torch and through the engine.

    python benchmarks/generated_programs.py [N] [--seed S] [--batch 5000] [-j JOBS] [--no-shrink]
                                            [--device cpu|cuda]

N defaults to 200,000. Programs are drawn by the Hypothesis strategies of tests/generated/
(in batches of `--batch`, batch k seeded with S + k, run by JOBS processes; the batches and
so the programs are the same for any JOBS), each run under torch for several size
assignments (size-1 dims included) and compared sink by sink with the engine's verdicts
(tests/generated/oracle.py says what counts as a disagreement). Prints, every batch and at the
end: programs run, disagreements by class, completeness per op family; at the end, one program
per disagreement class, shrunk by Hypothesis to a minimal one (the first one drawn with
`--no-shrink`). `--device cuda` runs the programs' tensors on the GPU
(torch.set_default_device), where kernels may choose other output strides.
"""
from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402

from tests.generated.programs import FORMS, programs  # noqa: E402
from tests.generated.tally import Tally, shrink  # noqa: E402


def run_batch(tally: Tally, n: int, batch_seed: int, forms: tuple[str, ...] = FORMS) -> Tally:
    @seed(batch_seed)
    @settings(max_examples=n, database=None, deadline=None, phases=(Phase.generate,),
              suppress_health_check=list(HealthCheck))
    @given(programs(forms=forms))
    def batch(program):
        tally.add(program)

    batch()
    return tally


def _batch(job: tuple) -> Tally:
    return run_batch(Tally(), *job)


def _use_device(device: str) -> None:
    import torch

    torch.set_default_device(device)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=5000)
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("--no-shrink", action="store_true")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--forms", default=",".join(FORMS),
                        help="comma-separated input forms to draw from (default: %(default)s; "
                        "also: opaque, an input whose rank the code never shows; lead, one "
                        "whose last dims a starred unpack names)")
    args = parser.parse_args(argv)
    forms = tuple(f for f in args.forms.split(",") if f)
    unknown = [f for f in forms if f not in FORMS + ("opaque", "lead")]
    if unknown or not forms:
        parser.error(f"unknown input forms: {', '.join(unknown) or '(none given)'}")
    if args.n < 1 or args.batch < 1 or args.jobs < 1:
        parser.error("N, --batch and --jobs must be positive")
    tally = Tally()
    start = time.perf_counter()
    jobs = [(min(args.batch, args.n - done), args.seed + k, forms)
            for k, done in enumerate(range(0, args.n, args.batch))]
    with multiprocessing.Pool(args.jobs, _use_device, (args.device,)) as pool:
        for part in pool.imap(_batch, jobs):
            tally.merge(part)
            elapsed = time.perf_counter() - start
            print(f"--- after {tally.programs} programs, {elapsed:.0f} s "
                  f"({1000 * elapsed / tally.programs:.1f} ms per program, wall, "
                  f"{args.jobs} jobs)\n{tally.report()}", flush=True)
    _use_device(args.device)  # for shrinking, here after the workers forked (CUDA forbids after)
    for name, example in sorted(tally.examples.items()):
        shown = example if args.no_shrink else shrink(name, example.program, forms=forms) or example
        print(f"=== {name} ({tally.disagreements[name]}), "
              f"{'first' if args.no_shrink else 'minimal'} program "
              f"(line {shown.line}: {shown.detail}):\n{shown.program}\n", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
