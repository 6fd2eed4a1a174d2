"""The history comparison's policy keys and error control (SPEC §7, §10, §18): issue 26."""

from __future__ import annotations

import dataclasses

import pytest
from history_cards import make_card, run

import scorekit as sk
from scorekit.history import compare


def _recorded_with(card: sk.Scorecard, regression: dict) -> sk.Scorecard:
    """``card`` as read back from a file whose recorded policy has this ``regression`` section."""
    return dataclasses.replace(card, policy={**card.policy, "regression": regression})


def test_a_card_that_recorded_the_retired_interval_method_is_compared_with_the_default(tmp_path):
    db = tmp_path / "history.sqlite"
    run(make_card(40, 0, "1"), db)
    old = _recorded_with(make_card(39, 1, "2"), {"required": True, "method": "interval", "max_drop": 0.02})
    comp = compare(old, db)
    assert comp["method"] == "paired" and comp["required"] is True and comp["max_drop"] == 0.02
    assert comp["status"] == "passed"
    assert "retired method 'interval'" in comp["detail"] and "read, not chosen" in comp["detail"]
    assert all(e["method"] == "paired" for e in comp["regressions"])


def test_choosing_the_interval_method_is_refused_naming_the_key(tmp_path):
    card = make_card(39, 1, "2")
    with pytest.raises(sk.PolicyError, match=r"^regression\.method: .*use paired or newcombe"):
        compare(card, tmp_path / "history.sqlite", regression={"method": "interval"})
    with pytest.raises(sk.PolicyError, match=r"^regression\.multiplicity: must be one of holm, none"):
        compare(card, tmp_path / "history.sqlite", regression={"multiplicity": "sidak"})


def _multi_card(losses: dict[str, int], version: str, policy: dict) -> sk.Scorecard:
    """40 single-trial cases per dimension; the first ``losses[d]`` cases of d FAIL."""
    rows = [{"id": f"{d}-{i}", "dimension": d, "case_id": f"c{i:02d}", "trial": 0, "evaluator": "h",
             "status": "FAIL" if i < lost else "PASS", "agent_output": f"{version} {d} {i}"}
            for d, lost in losses.items() for i in range(40)]
    return sk.evaluate(rows, policy=policy, agent_name="agent", agent_version=version)


LOSSES = {"d0": 6, "d1": 5, "d2": 4, "d3": 0}


@pytest.mark.parametrize("multiplicity", ["holm", "none"])
def test_regressed_after_the_multiplicity_control(tmp_path, multiplicity):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    policy = {"regression": {"required": True, "multiplicity": multiplicity},
              "gate": {"thresholds": {d: 0.0 for d in LOSSES}}}
    db = tmp_path / "history.sqlite"
    run(_multi_card(dict.fromkeys(LOSSES, 0), "1", policy), db)
    card, comp, _ = run(_multi_card(LOSSES, "2", policy), db)
    assert comp["multiplicity"] == multiplicity and comp["alpha"] == 0.025 and comp["comparisons"] == 4
    entries = {e["dimension"]: e for e in comp["regressions"]}
    p = [entries[d]["p_value"] for d in sorted(LOSSES)]
    if multiplicity == "holm":
        reject, adjusted, _, _ = multitest.multipletests(p, alpha=0.025, method="holm")
    else:
        reject, adjusted = [x <= 0.025 for x in p], p
    assert [entries[d]["regressed"] for d in sorted(LOSSES)] == list(reject)
    assert [entries[d]["p_adjusted"] for d in sorted(LOSSES)] == pytest.approx(list(adjusted), abs=1e-12)
    regressed = [d for d, r in zip(sorted(LOSSES), reject, strict=True) if r]
    assert regressed  # the design has a regression either way ...
    test = "paired, Holm at 2.5%" if multiplicity == "holm" else "paired, each at 2.5%"
    assert comp["status"] == "regressed" and card.decision == "FAIL"
    assert comp["detail"] == f"regressed against record 1 ({test}): " + ", ".join(regressed)


def test_holm_regresses_fewer_dimensions_than_no_control_on_the_same_runs(tmp_path):
    counts = {}
    for multiplicity in ("holm", "none"):
        policy = {"regression": {"required": True, "multiplicity": multiplicity},
                  "gate": {"thresholds": {d: 0.0 for d in LOSSES}}}
        db = tmp_path / f"{multiplicity}.sqlite"
        run(_multi_card(dict.fromkeys(LOSSES, 0), "1", policy), db)
        _, comp, _ = run(_multi_card(LOSSES, "2", policy), db)
        counts[multiplicity] = sum(e["regressed"] for e in comp["regressions"])
    assert 0 < counts["holm"] < counts["none"]


def test_an_unchanged_rerun_passes_with_the_level_in_the_detail(tmp_path):
    db = tmp_path / "history.sqlite"
    run(make_card(38, 2, "1"), db)
    comp = compare(make_card(38, 2, "2"), db)
    assert comp["status"] == "passed" and comp["comparisons"] == 1
    assert comp["detail"] == "no regression against record 1 (paired, Holm at 2.5%)"
    (entry,) = comp["regressions"]
    assert entry["p_value"] == entry["p_adjusted"] == 1.0 and entry["regressed_cases"] == {"total": 0, "listed": []}


def test_the_comparison_in_scorecard_json_matches_the_schema(tmp_path):
    import copy
    import json

    from scorekit.reports.json import ScorecardSchemaError, validate_scorecard_json

    policy = {"regression": {"required": True}, "gate": {"thresholds": {d: 0.0 for d in LOSSES}}}
    db = tmp_path / "history.sqlite"
    run(_multi_card(dict.fromkeys(LOSSES, 0), "1", policy), db)
    card, comp, _ = run(_multi_card(LOSSES, "2", policy), db)
    data = json.loads(card.to_json())
    validate_scorecard_json(data)
    entry = data["comparison"]["regressions"][0]
    assert entry["regressed_cases"]["total"] == 6 and entry["method_used"] == "paired"
    for path, bad in ((("p_value",), 1.5), (("method_used",), "interval"), (("regressed_cases", "total"), -1),
                      (("shared_cases",), 2.5)):
        damaged = copy.deepcopy(data)
        target = damaged["comparison"]["regressions"][0]
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = bad
        with pytest.raises(ScorecardSchemaError):
            validate_scorecard_json(damaged)
    damaged = copy.deepcopy(data)
    damaged["comparison"]["multiplicity"] = "bonferroni"
    with pytest.raises(ScorecardSchemaError):
        validate_scorecard_json(damaged)
