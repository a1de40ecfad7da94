"""docker/z2jh-values.yaml against the Zero to JupyterHub chart's values schema (run by
docker/test/test-hub.sh with the hub venv's pinned jsonschema and PyYAML).

Checks: the values validate against docker/test/hub/z2jh/values.schema.json (chart 4.4.0); copies
with a wrong type, an unknown key or a misspelt section are rejected (the validator is live);
the course's settings are there (image, uid 1000, per-user PVC at the work dir, the culler,
no egress); the limits are the ones docker/jupyterhub_config.py uses, so both paths are sized
alike; the chart version named in the values file is the schema's.
"""

import copy
import json
import os
import re
import sys

import jsonschema
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
DOCKER = os.path.dirname(os.path.dirname(HERE))
VALUES = os.path.join(DOCKER, "z2jh-values.yaml")
SCHEMA = os.path.join(HERE, "z2jh", "values.schema.json")
DEFAULTS = os.path.join(HERE, "z2jh", "values.yaml")  # the chart's own defaults
CHART = "4.4.0"


def merged(defaults, values):
    """What helm validates: the chart's defaults with the user's values over them (maps merged
    key by key, anything else replaced, null removes the default)."""
    out = copy.deepcopy(defaults)
    for k, v in values.items():
        if v is None:
            out.pop(k, None)
        elif isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = merged(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def errors(values, schema, defaults):
    values = merged(defaults, values)
    v = jsonschema.Draft7Validator(schema)
    return sorted(f"{'.'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in v.iter_errors(values))


def main():
    schema = json.load(open(SCHEMA))
    defaults = yaml.safe_load(open(DEFAULTS))
    text = open(VALUES).read()
    values = yaml.safe_load(text)
    problems = []

    errs = errors(values, schema, defaults)
    if errs:
        problems += ["schema: " + e for e in errs]
    else:
        print(f"   ok: {os.path.relpath(VALUES, DOCKER)} merged over the chart's defaults validates against the chart {CHART} values schema")

    # The validator is live: each broken copy must be rejected.
    broken = {
        "uid as a string": lambda v: v["singleuser"].__setitem__("uid", "1000"),
        "unknown storage key": lambda v: v["singleuser"]["storage"].__setitem__("mountPath", "/home/learner/work"),
        "misspelt section": lambda v: v.__setitem__("singleUser", v.pop("singleuser")),
        "cull timeout as text": lambda v: v["cull"].__setitem__("timeout", "1h"),
    }
    for name, mutate in broken.items():
        v = copy.deepcopy(values)
        mutate(v)
        if not errors(v, schema, defaults):
            problems.append(f"a copy with {name} validates: the schema check cannot fail")
    if not any(p.startswith("a copy") for p in problems):
        print(f"   ok: {len(broken)} broken copies ({', '.join(broken)}) are rejected")

    su = values["singleuser"]
    np = su["networkPolicy"]
    want = {
        "image is the course image": su["image"]["name"].endswith("llmperf-course-lab"),
        "uid 1000": su["uid"] == 1000,
        "per-user PVC at /home/learner/work": su["storage"]["type"] == "dynamic" and su["storage"]["homeMountPath"] == "/home/learner/work",
        "culler on": values["cull"]["enabled"] is True and values["cull"]["timeout"] > 0,
        "network policy on, no egress": np["enabled"] is True and np.get("egress") == [] and not any(np["egressAllowRules"].values()),
        "guarantees within limits": su["cpu"]["guarantee"] <= su["cpu"]["limit"] and
            mem(su["memory"]["guarantee"]) <= mem(su["memory"]["limit"]),
        f"chart version {CHART} named": re.search(rf"--version {re.escape(CHART)}\b", text) is not None
            and f"chart version {CHART}" in open(os.path.join(HERE, "z2jh", "README.md")).read(),
    }
    cfg = open(os.path.join(DOCKER, "jupyterhub_config.py")).read()
    cpu = re.search(r'COURSEHUB_CPU_LIMIT", "([0-9.]+)"', cfg).group(1)
    memlim = re.search(r'COURSEHUB_MEM_LIMIT", "([0-9]+[KMG]?)"', cfg).group(1)
    want[f"limits = docker/jupyterhub_config.py's ({cpu} CPUs, {memlim})"] = (
        float(cpu) == su["cpu"]["limit"] and mem(memlim) == mem(su["memory"]["limit"]))
    for what, good in want.items():
        if not good:
            problems.append("course setting: " + what)
    if all(want.values()):
        print("   ok: " + "; ".join(want))
    if problems:
        print("z2jh values: FAIL\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    return 0


def mem(s):
    s = str(s)
    # JupyterHub's ByteSpecification (DockerSpawner and KubeSpawner alike): K, M, G are powers of 1024.
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}
    m = re.fullmatch(r"([0-9.]+)([KMG]i?)?", s)
    return float(m.group(1)) * units.get(m.group(2) or "", 1)


if __name__ == "__main__":
    sys.exit(main())
