"""`contiglint verify`: every fixture agrees with torch, a wrong model is caught precisely, and
the runner survives hanging, crashing and raising cases."""
from __future__ import annotations

import dataclasses
import json
import textwrap

import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.xdist_group("verify")  # one worker runs each module fixture

from contiglint.cli import main as contiglint_main  # noqa: E402
from contiglint.layout.model import op_transfers  # noqa: E402
from contiglint.verify.claims import CLAIMS  # noqa: E402
from contiglint.verify.compare import compare  # noqa: E402
from contiglint.verify.runner import run_programs  # noqa: E402
from contiglint.verify.verdicts import (CONFIRMED, MISMATCH, MISSED, REFUTED,  # noqa: E402
                                        WITNESS_HOLDS, Verdict)
from contiglint.verify.verifier import verify  # noqa: E402
from contiglint.verify.worker import EMULATED  # noqa: E402
from tests.fixture_format import ROOT  # noqa: E402

HAS_CUDA = torch.cuda.is_available()


@pytest.fixture(scope="module")
def fixture_report():
    return verify([str(ROOT)], device="cpu", jobs=2, case_timeout=60)


def test_every_fixture_agrees_with_torch(fixture_report):
    """Zero refuted and zero missed claims, markers that match the engine, every program run."""
    failing = [v for v in fixture_report.failing if v.code != "fixed"]
    assert not failing, "\n".join(map(str, failing))
    assert fixture_report.devices == {EMULATED}


def test_fixed_programs_run_clean_and_return_the_same_values(fixture_report):
    failing = [v for v in fixture_report.failing if v.code == "fixed"]
    assert not failing, "\n".join(map(str, failing))


def test_every_checked_rule_with_fixtures_is_confirmed_somewhere(fixture_report):
    """A rule whose fixtures never show torch confirming it is not being verified at all."""
    with_fixtures = {path.name for path in ROOT.iterdir() if path.is_dir()} & set(CLAIMS)
    confirmed = {v.code for v in fixture_report.verdicts if v.outcome == CONFIRMED}
    assert with_fixtures - confirmed == set()


PROGRAM = textwrap.dedent("""\
    import torch


    def flatten_transposed(x):
        return x.t().view(-1)  # expect: CTG101


    def flatten_copied(x):
        return x.t().contiguous().view(-1)


    def case_transposed():
        return flatten_transposed(torch.arange(12.).reshape(3, 4))


    def case_copied():
        return flatten_copied(torch.arange(12.).reshape(3, 4))
    """)


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    path = tmp_path_factory.mktemp("verify") / "flatten.py"
    path.write_text(PROGRAM, encoding="utf-8")
    return str(path), run_programs([str(path)], device="cpu", jobs=1)[str(path)]


def _wrong(monkeypatch, method, transfer):
    """Replace one op-table entry for the static side (the run already happened)."""
    monkeypatch.setitem(op_transfers._METHODS, method,
                        dataclasses.replace(op_transfers._METHODS[method], transfer=transfer))


def test_correct_model_agrees(small_run):
    path, run = small_run
    verdicts = compare(path, PROGRAM, run)
    assert [(v.line, v.code, v.outcome) for v in verdicts] == [(5, "CTG101", CONFIRMED)]


def test_transpose_claimed_contiguous_is_reported_missed_with_strides(small_run, monkeypatch):
    path, run = small_run
    _wrong(monkeypatch, "t", lambda call: call.tensor)  # `t()` "keeps" the layout: wrong
    verdicts = compare(path, PROGRAM, run)
    missed = [v for v in verdicts if v.outcome == MISSED]
    assert [(v.path, v.line, v.code) for v in missed] == [(path, 5, "CTG101")]
    text = str(missed[0])
    assert f"{path}:5: CTG101 missed" in text
    assert "shape (4, 3) strides (1, 4) non-contiguous" in text and "view size" in text
    assert (5, "CTG101", MISMATCH) in {(v.line, v.code, v.outcome) for v in verdicts}


def test_contiguous_claimed_to_keep_strides_is_reported_refuted(small_run, monkeypatch):
    path, run = small_run
    _wrong(monkeypatch, "contiguous", lambda call: call.tensor)  # claims no copy: wrong
    verdicts = compare(path, PROGRAM, run)
    refuted = [v for v in verdicts if v.outcome == REFUTED]
    assert [(v.line, v.code) for v in refuted] == [(9, "CTG101")]
    assert "Tensor.view on shape (4, 3) strides (3, 1) contiguous" in str(refuted[0])
    assert refuted[0].failing


CONTRACT_PROGRAM = textwrap.dedent("""\
    import torch


    def fused(x):
        assert x.is_contiguous(), "x must be contiguous"
        return x * 2


    def case_transposed():
        try:
            return fused(torch.arange(12.).reshape(3, 4).t())  # expect: CTG114
        except AssertionError:
            return None


    def case_copied():
        return fused(torch.arange(12.).reshape(3, 4).t().contiguous())
    """)


@pytest.fixture(scope="module")
def contract_run(tmp_path_factory):
    path = tmp_path_factory.mktemp("verify") / "contract.py"
    path.write_text(CONTRACT_PROGRAM, encoding="utf-8")
    return str(path), run_programs([str(path)], device="cpu", jobs=1)[str(path)]


def test_contract_claim_reads_the_callee_guard(contract_run, monkeypatch):
    """CTG114 is reported at the call; torch shows the hazard in the callee, at the guard the
    call reached: confirmed for the transposed argument, refuted when a wrong model claims the
    copied one is non-contiguous (the guard passed on it)."""
    path, run = contract_run
    verdicts = compare(path, CONTRACT_PROGRAM, run)
    assert [(v.line, v.code, v.outcome) for v in verdicts] == [(11, "CTG114", CONFIRMED)]
    assert "the guard at line 5 fails" in str(verdicts[0])
    _wrong(monkeypatch, "contiguous", lambda call: call.tensor)  # claims no copy: wrong
    refuted = [v for v in compare(path, CONTRACT_PROGRAM, run) if v.outcome == REFUTED]
    assert [(v.line, v.code) for v in refuted] == [(17, "CTG114")]
    assert "the guard at line 5 passes" in str(refuted[0])


def test_isolation_hang_crash_and_raise(tmp_path):
    path = tmp_path / "unruly.py"
    path.write_text(textwrap.dedent("""\
        import os
        import signal
        import time
        import torch


        def case_hangs():
            time.sleep(60)


        def case_crashes():
            os.kill(os.getpid(), signal.SIGKILL)


        def case_raises():
            torch.arange(6.).reshape(2, 3).t().view(-1)


        def case_prints_and_returns():
            print("to stdout, which must not corrupt the result stream")
            return torch.arange(3)
        """), encoding="utf-8")
    run = run_programs([str(path)], device="cpu", jobs=1, case_timeout=3)[str(path)]
    statuses = {case.case: case.status for case in run.cases}
    assert statuses == {"case_hangs": "timeout", "case_crashes": "crashed",
                        "case_raises": "raised", "case_prints_and_returns": "returned"}
    raised = run.case("case_raises")
    assert "view size is not compatible" in raised.error
    assert torch.equal(run.case("case_prints_and_returns").value, torch.arange(3))


def test_cuda_is_emulated_with_preserved_strides_on_cpu(tmp_path):
    path = tmp_path / "moves.py"
    path.write_text(textwrap.dedent("""\
        import torch


        def case_moves():
            x = torch.arange(12.).reshape(3, 4).t()
            return x.cuda(), x.to("cuda"), torch.zeros(2, device="cuda")
        """), encoding="utf-8")
    run = run_programs([str(path)], device="cpu", jobs=1)[str(path)]
    (case,) = run.cases
    assert run.device == EMULATED and case.status == "returned", case.error
    moved = [obs for obs in case.observations if obs.op in ("Tensor.cuda", "Tensor.to")]
    assert [obs.result.strides for obs in moved] == [(1, 4), (1, 4)]
    assert [op for _, op in case.emulated] == ["Tensor.cuda", "Tensor.to", "Tensor.to"] \
        or len(case.emulated) == 2  # factories are rewritten without a note on some paths


@pytest.mark.skipif(HAS_CUDA, reason="checks the behaviour without a GPU")
def test_device_cuda_without_a_gpu_fails_clearly(tmp_path, capsys):
    path = tmp_path / "tiny.py"
    path.write_text("def case_nothing():\n    return 1\n", encoding="utf-8")
    assert contiglint_main(["verify", str(path), "--device", "cuda", "-j", "1"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "CUDA is not available" in captured.err


@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device")
def test_device_moves_on_a_real_gpu_are_not_emulated(tmp_path):
    path = tmp_path / "moves.py"
    path.write_text("import torch\n\ndef case_move():\n"
                    "    return torch.arange(12.).reshape(3, 4).t().cuda()\n", encoding="utf-8")
    run = run_programs([str(path)], device="cuda", jobs=1)[str(path)]
    (case,) = run.cases
    assert run.device == "cuda" and case.emulated == []
    (move,) = [obs for obs in case.observations if obs.op == "Tensor.cuda"]
    assert move.result.device.startswith("cuda") and move.result.strides == (1, 4)


def test_cli_help_says_it_executes_code(capsys):
    with pytest.raises(SystemExit):
        contiglint_main(["verify", "--help"])
    assert "EXECUTES" in capsys.readouterr().out


def test_cli_json_has_every_observation(tmp_path, capsys):
    path = tmp_path / "flatten.py"
    path.write_text(PROGRAM, encoding="utf-8")
    assert contiglint_main(["verify", str(path), "--format", "json", "-j", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["failing"] == 0 and report["devices"] == ["cuda" if HAS_CUDA else EMULATED]
    assert report["summary"]["CTG101"] == {CONFIRMED: 1, WITNESS_HOLDS: 1}
    (run,) = report["runs"]
    views = [o for case in run["cases"] for o in case["observations"] if o["op"] == "Tensor.view"]
    assert {(o["line"], o["arguments"][0]["strides"] == [1, 4]) for o in views} == \
        {(5, True), (9, False)}


def test_verdict_text_names_file_line_rule_and_torch():
    verdict = Verdict("f.py", 3, "CTG104", REFUTED, "claim text", "torch text", "case_x")
    assert str(verdict) == ("f.py:3: CTG104 refuted\n    claim: claim text\n"
                            "    torch: torch text (case_x)")
