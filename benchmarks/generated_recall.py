"""Recall on the generated programs: of the views torch raises at, how many a default run reports.

    python benchmarks/generated_recall.py [N] [--seed S] [--forms FORMS] [--examples FILE]

The programs of benchmarks/generated_programs.py (the Hypothesis strategies of
tests/generated/, one batch of N, default 1,500, seeded with S), each run under torch for its
size assignments and through the engine (tests/generated/oracle.py). A view sink counts where
torch raised its layout error at the generic assignment (every size above 1, all different):
it is caught where the default run reports it (CTG101). Prints the views counted, the share
caught, and the missed ones by the op family and spelling of the statement that made the
viewed tensor, with the engine's verdict there; `--examples FILE` writes the shortest missed
program of each op. generated_programs.py measures the other side: findings torch does not
bear out (disagreements). Forms as there (`--forms lead` for tensors whose leading dims the
code never counts, `opaque` for those of a rank it never shows).
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402

from tests.generated.oracle import EngineError, engine_verdicts  # noqa: E402
from tests.generated.programs import FORMS, Program, programs  # noqa: E402
from tests.generated.torch_runs import run_torch  # noqa: E402


def missed_views(program: Program, counts: Counter, missed: Counter, verdicts: Counter,
                 examples: dict) -> None:
    """Count the program's views torch raised at (generic sizes) and those the default run
    missed, keyed by the op that made the viewed tensor."""
    observed = run_torch(program)
    try:
        found = engine_verdicts(program)
    except EngineError:
        return  # generated_programs.py reports it as a disagreement
    index = {program.first_line + i: i for i in range(len(program.lines))}
    for v in found:
        obs = observed[index[v.line]]
        if v.sink.kind != "view" or obs.generic is None or not obs.raised or \
                not obs.raised[obs.generic]:
            continue
        counts["raised"] += 1
        if v.finding:
            counts["caught"] += 1
            continue
        made = [line for line in program.lines
                if line.kind == "op" and line.text.startswith(v.sink.target + " =")]
        key = (made[0].family, made[0].op) if made else ("input", "input")
        missed[key] += 1
        verdicts[v.engine] += 1
        if key not in examples or len(str(program)) < len(str(examples[key])):
            examples[key] = program


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", nargs="?", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--forms", default=",".join(FORMS))
    parser.add_argument("--examples", help="write the shortest missed program of each op here")
    args = parser.parse_args(argv)
    forms = tuple(args.forms.split(","))
    counts, missed, verdicts, examples = Counter(), Counter(), Counter(), {}

    @seed(args.seed)
    @settings(max_examples=args.n, database=None, deadline=None, phases=(Phase.generate,),
              suppress_health_check=list(HealthCheck))
    @given(programs(forms=forms))
    def batch(program):
        missed_views(program, counts, missed, verdicts, examples)

    batch()
    raised, caught = counts["raised"], counts["caught"]
    share = f"{100 * caught / raised:.0f}%" if raised else "-"
    print(f"{args.n} programs (forms {args.forms}, seed {args.seed}): torch raised at {raised} "
          f"views at the generic sizes; the default run reported {caught} ({share})")
    if missed:
        print("missed, by the op that made the viewed tensor (family, spelling):")
        for (family, op), n in missed.most_common():
            print(f"  {n:5d}  {family:14s} {op}")
        print("engine verdicts at the missed views: " +
              ", ".join(f"{verdict} {n}" for verdict, n in verdicts.most_common()))
    if args.examples:
        with open(args.examples, "w") as out:
            for (family, op), program in sorted(examples.items()):
                out.write(f"=== {family} {op}\n{program}\n\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
