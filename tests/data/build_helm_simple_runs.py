"""Builds HELM 0.5.16 run directories for simple_classification and simple1 (simple/model1) by hand.

crfm-helm 0.5.16 needs torch, so helm-run could not be run here. simple_classification is built from the real
simple_mcqa run of the same helm-run command (same adapter, metric specs, instance ids and in-context examples: both
scenarios list 90 instances in the same order) with what HELM's source makes differ: the scenario, instructions,
inputs (str(i)), prompts and prompt lengths. simple1 follows run_specs/simple_run_specs.py (generation adapter,
num_train_trials 3, num_outputs 3, BasicGenerationMetric(names=[]) + InstancesPerSplitMetric),
scenarios/simple_scenarios.py (Simple1Scenario, random.seed(1)) and clients/simple_client.py (model1: the prompt's
last n space-separated tokens, reversed, logprob -i); its in-context examples are drawn with random.Random(trial),
not HELM's own sampler, and its timings are placeholders (what the helm importer reads: ids, splits, train trials,
inputs, references, completions and the stat names and values of 0/1 correctness, of which simple1 has none).

Run: python build_helm_simple_runs.py shared/data/imports-2/helm/simple_mcqa:model=simple_model1 OUT_DIR
"""
import json
import random
import re
import sys
from pathlib import Path

SRC = Path(sys.argv[1])  # the real simple_mcqa:model=simple_model1 directory
OUT = Path(sys.argv[2])


def load(name):
    return json.loads((SRC / name).read_text())


def dump(folder, name, data):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(data, indent=2))


def stat(name, values, split="test", perturbation=None):
    n = dict(name=name, split=split)
    if perturbation:
        n["perturbation"] = perturbation
    if not values:
        return {"name": n, "count": 0, "sum": 0, "sum_squared": 0}
    s, sq = sum(values), sum(v * v for v in values)
    mean = s / len(values)
    var = sq / len(values) - mean * mean
    return {"name": n, "count": len(values), "sum": s, "sum_squared": sq, "min": min(values), "max": max(values),
            "mean": float(mean), "variance": float(max(var, 0.0)), "stddev": float(max(var, 0.0) ** 0.5)}


# ------------------------------------------------------------------ simple_classification
def classification():
    out = OUT / "simple_classification:model=simple_model1"
    old_instr, new_instr = ("Answer the following questions with a single letter only.\n",
                            "Answer the following questions with a single word only.\n")
    spec = load("run_spec.json")
    spec["name"] = "simple_classification:model=simple_model1"
    spec["scenario_spec"]["class_name"] = "helm.benchmark.scenarios.simple_scenarios.SimpleClassificationScenario"
    spec["adapter_spec"]["instructions"] = new_instr
    spec["groups"] = ["simple_classification"]
    dump(out, "run_spec.json", spec)
    scenario = load("scenario.json")
    scenario.update(name="simple_classification", description="Classify numbers by pairity.", tags=["classification"])
    dump(out, "scenario.json", scenario)
    state = load("scenario_state.json")
    state["adapter_spec"]["instructions"] = new_instr
    lengths = {}
    for rs in state["request_states"]:
        text = rs["instance"]["input"]["text"]
        rs["instance"]["input"]["text"] = re.fullmatch(r"Is (\d+) even or odd\?", text).group(1)
        prompt = rs["request"]["prompt"].replace(old_instr, new_instr)
        prompt = re.sub(r"Is (\d+) even or odd\?", r"\1", prompt)
        rs["request"]["prompt"] = prompt
        lengths[(rs["instance"]["id"], rs["train_trial_index"])] = len(prompt)
    dump(out, "scenario_state.json", state)
    per = load("per_instance_stats.json")
    for entry in per:
        for s in entry["stats"]:
            if s["name"]["name"] == "num_prompt_tokens":
                s.update(stat("num_prompt_tokens", [lengths[(entry["instance_id"], entry["train_trial_index"])]]))
    dump(out, "per_instance_stats.json", per)
    mean_len = sum(lengths.values()) / len(lengths)
    stats = load("stats.json")
    for s in stats:
        if s["name"]["name"] == "num_prompt_tokens":
            p = s["name"].get("perturbation")
            s.update(stat("num_prompt_tokens", [mean_len], perturbation=p))
    dump(out, "stats.json", stats)


# ------------------------------------------------------------------ simple1
def simple1():
    out = OUT / "simple1:model=simple_model1"
    random.seed(1)

    def instance(split):
        tokens = [str(random.randint(0, 19)) for _ in range(5)]
        text = " ".join(tokens)
        answer = random.choice(tokens)
        return {"input": {"text": text}, "references": [{"output": {"text": answer}, "tags": ["correct"]},
                                                        {"output": {"text": "-1"}, "tags": []}], "split": split}

    instances = [instance("train") for _ in range(10)] + [instance("test") for _ in range(10)]
    for i, inst in enumerate(instances):
        inst["id"] = f"id{i}"
    train, test = instances[:10], instances[10:]
    base = load("run_spec.json")
    adapter = dict(base["adapter_spec"])
    adapter.update(method="generation", instructions="Please solve the following problem.\n",
                   input_prefix="Input: ", input_suffix="\n", output_prefix="Output: ", output_suffix="\n",
                   max_train_instances=5, max_eval_instances=10, num_outputs=3, num_train_trials=3,
                   model_deployment="simple/model1", model="simple/model1", temperature=1, max_tokens=100,
                   stop_sequences=["."])
    spec = {"name": "simple1:model=simple_model1",
            "scenario_spec": {"class_name": "helm.benchmark.scenarios.simple_scenarios.Simple1Scenario",
                              "args": {"num_input_tokens": 5, "vocab_size": 20, "num_train_instances": 10,
                                       "num_test_instances": 10}},
            "adapter_spec": adapter,
            "metric_specs": [{"class_name": "helm.benchmark.metrics.basic_metrics.BasicGenerationMetric",
                              "args": {"names": []}},
                             {"class_name": "helm.benchmark.metrics.basic_metrics.InstancesPerSplitMetric",
                              "args": {}}],
            "data_augmenter_spec": base["data_augmenter_spec"], "groups": []}
    dump(out, "run_spec.json", spec)
    dump(out, "scenario.json", {"name": "simple1", "description": "A simple scenario", "tags": ["simple"],
                                "definition_path": "https://github.com/stanford-crfm/helm/blob/main/src/helm/"
                                                   "benchmark/scenarios/simple_scenarios.py"})
    states, per = [], []
    when = 1796589100
    per_trial = {}
    for trial in range(3):
        shots = random.Random(trial).sample(train, 5)
        blocks = [f"Input: {s['input']['text']}\nOutput: {s['references'][0]['output']['text']}\n" for s in shots]
        for inst in test:
            prompt = ("Please solve the following problem.\n\n" + "\n".join(blocks) + "\n"
                      + f"Input: {inst['input']['text']}\nOutput:")
            tokens = prompt.split(" ")
            completions = [{"text": t, "logprob": -i, "tokens": [{"text": t, "logprob": -i}]}
                           for i, t in enumerate(reversed(tokens[-3:]))]
            states.append({"instance": inst, "train_trial_index": trial,
                           "request": {"model_deployment": "simple/model1", "model": "simple/model1",
                                       "embedding": False, "prompt": prompt, "temperature": 1,
                                       "num_completions": 3, "top_k_per_token": 1, "max_tokens": 100,
                                       "stop_sequences": ["."], "echo_prompt": False, "top_p": 1,
                                       "presence_penalty": 0, "frequency_penalty": 0},
                           "result": {"success": True, "embedding": [], "completions": completions,
                                      "cached": False, "request_time": 1.1920928955078125e-05,
                                      "request_datetime": when},
                           "num_train_instances": 5, "prompt_truncated": False, "num_conditioning_tokens": 0})
            first = completions[0]["text"]
            values = [("num_references", 2), ("num_train_trials", 3), ("num_prompt_tokens", len(prompt)),
                      ("num_completion_tokens", 3), ("num_output_tokens", 3), ("training_co2_cost", None),
                      ("training_energy_cost", None), ("inference_runtime", 1.1920928955078125e-05),
                      ("batch_size", 1), ("finish_reason_length", 0), ("finish_reason_stop", 0),
                      ("finish_reason_endoftext", 0), ("finish_reason_unknown", 1), ("num_train_instances", 5),
                      ("prompt_truncated", 0), ("max_prob", 1.0), ("logprob", 0), ("num_perplexity_tokens", 1),
                      ("num_bytes", len(first.encode()))]
            per.append({"instance_id": inst["id"], "train_trial_index": trial,
                        "stats": [stat(n, [] if v is None else [v]) for n, v in values]})
            for n, v in values:
                per_trial.setdefault(n, {}).setdefault(trial, []).extend([] if v is None else [v])
    dump(out, "scenario_state.json", {"adapter_spec": adapter, "request_states": states})
    dump(out, "per_instance_stats.json", per)
    # stats.json: each trial's mean, merged over the 3 trials (as HELM's evaluate does), then derived stats
    means = {n: [sum(v) / len(v) for v in trials.values() if v] for n, trials in per_trial.items()}
    means["perplexity"] = [1.0] * 3
    means["bits_per_byte"] = [0.0] * 3
    means["logprob_per_byte"] = [0.0] * 3
    stats = [stat(n, v) for n, v in means.items()]
    for p in ({"name": "robustness", "robustness": True, "fairness": False, "computed_on": "worst"},
              {"name": "fairness", "robustness": False, "fairness": True, "computed_on": "worst"}):
        stats += [stat(n, v, perturbation=p) for n, v in means.items() if n not in ("perplexity", "bits_per_byte",
                                                                                   "logprob_per_byte")]
    stats.append(stat("num_instances", [10, 10, 10]))
    dump(out, "stats.json", stats)


classification()
simple1()
