"""Stored evidence read back (issue 25 c, d, 8, 11; SPEC §13, §17, §20).

``gate`` refuses a card that records a decision other than PASS; ``compare`` says
in words when a side is partial, the suites or policies differ or the two sides
are the same record; ``report``, ``compare`` and ``history`` recompute every
derived number of a stored scorecard or history record and refuse (exit 2, one
line naming the field) one that disagrees; every string from evidence that they
print is escaped for the terminal.
"""

from __future__ import annotations

import scorekit as sk
from scorekit import release


# --------------------------------------------------------------------------- (c) gate and the recorded decision
def _example_card(**names):
    return sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"), **names)


def test_gate_fails_a_card_that_records_a_decision_other_than_pass(run_cli, tmp_path):
    card = _example_card(agent_name="mail-agent", agent_version="1.4.0")
    assert card.decision == "FAIL"
    path = release.write_scorecard(card.to_release_payload(require_pass=False), tmp_path / "SCORECARD.md")
    code, out, err = run_cli("gate", "--scorecard", path)
    assert code == 1
    assert out.splitlines()[-1] == "outcome: FAIL (decision-not-pass)"
    assert "::error::Candidate scorecard records the scorekit decision FAIL (recipe.config.decision)" in out
    assert release.gate(path).failures == ("decision-not-pass",)
    # A card built from a PASS evaluation still passes.
    rows = [{"id": f"r{i}", "dimension": "task_completion", "status": "PASS", "evaluator": "h"} for i in range(10)]
    card = sk.evaluate(rows, agent_name="mail-agent", agent_version="1.4.0")
    assert card.decision == "PASS"
    path = release.write_scorecard(card.to_release_payload(), tmp_path / "PASS-SCORECARD.md")
    code, out, _ = run_cli("gate", "--scorecard", path)
    assert (code, out.splitlines()[-1]) == (0, "outcome: PASS (first-adoption)")
