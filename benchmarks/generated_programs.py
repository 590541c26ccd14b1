"""The layout model's exam: N random tensor programs run under torch and through the engine.

    python benchmarks/generated_programs.py [N] [--seed S] [--batch 5000] [--no-shrink]

N defaults to 200,000. Programs are drawn by the Hypothesis strategies of tests/generated/
(in batches of `--batch`, batch k seeded with S + k), each run under torch for several size
assignments (size-1 dims included) and compared sink by sink with the engine's verdicts
(tests/generated/oracle.py says what counts as a disagreement). Prints, every batch and at the
end: programs run, disagreements by class, completeness per op family; at the end, one program
per disagreement class, shrunk by Hypothesis to a minimal one.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402

from tests.generated.programs import programs  # noqa: E402
from tests.generated.tally import Tally, shrink  # noqa: E402


def run_batch(tally: Tally, n: int, batch_seed: int) -> None:
    @seed(batch_seed)
    @settings(max_examples=n, database=None, deadline=None, phases=(Phase.generate,),
              suppress_health_check=list(HealthCheck))
    @given(programs())
    def batch(program):
        tally.add(program)

    batch()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch", type=int, default=5000)
    parser.add_argument("--no-shrink", action="store_true")
    args = parser.parse_args(argv)
    if args.n < 1 or args.batch < 1:
        parser.error("N and --batch must be positive")
    tally = Tally()
    start = time.perf_counter()
    k = 0
    while tally.programs < args.n:
        run_batch(tally, min(args.batch, args.n - tally.programs), args.seed + k)
        k += 1
        elapsed = time.perf_counter() - start
        print(f"--- after {tally.programs} programs, {elapsed:.0f} s "
              f"({1000 * elapsed / tally.programs:.1f} ms per program)\n{tally.report()}",
              flush=True)
    if not args.no_shrink:
        for name, example in sorted(tally.examples.items()):
            minimal = shrink(name, example.program) or example
            print(f"=== {name} ({tally.disagreements[name]}), minimal program "
                  f"(line {minimal.line}: {minimal.detail}):\n{minimal.program}\n", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
