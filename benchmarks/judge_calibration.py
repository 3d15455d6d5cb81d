"""Calibrate and score the openvino judge on agenttest/data/judge_calibration.jsonl.

    python benchmarks/judge_calibration.py            # accuracy and Cohen's kappa per split
                                                      # (and a cosine-only baseline)
    python benchmarks/judge_calibration.py --errors   # also list every disagreement
    python benchmarks/judge_calibration.py --fit      # refit the logistic combiner on `tune`

``--fit`` uses the tune split only (rows a hard check already decides are left out, since
their verdict does not depend on the weights) and prints coefficients to paste into
agenttest/judges/_openvino_judge.py. The held-out split is never read by the fit.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Hashable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agenttest.judges import JudgeRequest, get_judge  # noqa: E402
from agenttest.judges._checks import run_checks  # noqa: E402
from agenttest.judges._openvino_judge import (  # noqa: E402
    HARD_FEATURES,
    SOFT_FEATURES,
    OpenVINOJudge,
    soft_features,
)

DATA = ROOT / "agenttest" / "data" / "judge_calibration.jsonl"

try:
    from agenttest.stats import cohen_kappa
except ImportError:  # the stats module is another issue; keep the script usable alone

    def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
        n = len(a)
        observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
        ca, cb = Counter(a), Counter(b)
        expected = sum(ca[k] * cb[k] for k in ca) / (n * n)
        return 1.0 if expected == 1 else (observed - expected) / (1 - expected)


try:
    from agenttest.stats import bootstrap_kappa_interval as interval
except ImportError:
    interval = None  # type: ignore[assignment]


def load(path: Path = DATA) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def evaluate(rows: list[dict[str, str]], judge: OpenVINOJudge) -> list[str]:
    reqs = [JudgeRequest("", r["reference"], r["candidate"]) for r in rows]
    return [res.verdict for res in judge.judge_batch(reqs)]


def summary(rows: list[dict[str, str]], verdicts: list[str]) -> dict[str, float]:
    labels = [r["label"] for r in rows]
    acc = sum(v == y for v, y in zip(verdicts, labels, strict=True)) / len(rows)
    return {
        "n": len(rows),
        "accuracy": acc,
        "kappa": cohen_kappa(labels, verdicts),
        "errors": sum(v == "ERROR" for v in verdicts),
    }


def fit(rows: list[dict[str, str]], judge: OpenVINOJudge, l2: float = 0.1) -> None:
    import numpy as np

    texts = [t for r in rows for t in (r["reference"], r["candidate"])]
    emb = judge.encoder.encode(texts)
    xs, ys = [], []
    for i, r in enumerate(rows):
        report = run_checks(r["reference"], r["candidate"])
        if any(report.features[name] for name in HARD_FEATURES):
            continue
        cosine = float(emb[2 * i] @ emb[2 * i + 1])
        feats = soft_features(cosine, report)
        xs.append([feats[name] for name in SOFT_FEATURES])
        ys.append(1.0 if r["label"] == "PASS" else 0.0)
    x = np.hstack([np.ones((len(xs), 1)), np.array(xs)])
    y = np.array(ys)
    penalty = np.eye(x.shape[1]) * l2
    penalty[0, 0] = 0.0  # the intercept is not shrunk
    beta = np.zeros(x.shape[1])
    for _ in range(100):  # Newton-Raphson on the penalised log-likelihood
        p = 1 / (1 + np.exp(-(x @ beta)))
        grad = x.T @ (y - p) - penalty @ beta
        hess = x.T @ (x * (p * (1 - p))[:, None]) + penalty
        step = np.linalg.solve(hess, grad)
        beta += step
        if np.abs(step).max() < 1e-9:
            break
    print(f"fit on {len(ys)} tune rows ({int(y.sum())} PASS), l2={l2}")
    print(f"INTERCEPT = {beta[0]:.3f}")
    print("WEIGHTS: dict[str, float] = {")
    for name, value in zip(SOFT_FEATURES, beta[1:], strict=True):
        print(f'    "{name}": {value:.3f},')
    print("}")


def cosine_baseline(rows: list[dict[str, str]], judge: OpenVINOJudge) -> None:
    """What the embedding alone does: one cosine threshold, chosen on tune."""
    texts = [t for r in rows for t in (r["reference"], r["candidate"])]
    emb = judge.encoder.encode(texts)
    cos = [float(emb[2 * i] @ emb[2 * i + 1]) for i in range(len(rows))]
    tune = [(c, r["label"]) for c, r in zip(cos, rows, strict=True) if r["split"] == "tune"]

    def verdicts(pairs: list[tuple[float, str]], t: float) -> list[str]:
        return ["PASS" if c >= t else "FAIL" for c, _ in pairs]

    best = max(
        (sum(v == y for v, (_, y) in zip(verdicts(tune, t), tune, strict=True)), t)
        for t in sorted({c for c, _ in tune})
    )[1]
    for split in ("tune", "heldout"):
        part = [(c, r["label"]) for c, r in zip(cos, rows, strict=True) if r["split"] == split]
        s = summary([{"label": y} for _, y in part], verdicts(part, best))
        print(
            f"{split:8s} cosine-only (threshold {best:.3f} chosen on tune): "
            f"accuracy={s['accuracy']:.3f}  kappa={s['kappa']:.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fit", action="store_true", help="refit the combiner on tune")
    parser.add_argument("--l2", type=float, default=0.1, help="L2 penalty for --fit")
    parser.add_argument("--errors", action="store_true", help="list disagreements")
    args = parser.parse_args()
    rows = load()
    judge = get_judge("openvino")
    assert isinstance(judge, OpenVINOJudge)
    if args.fit:
        fit([r for r in rows if r["split"] == "tune"], judge, args.l2)
        return
    cosine_baseline(rows, judge)
    for split in ("tune", "heldout"):
        part = [r for r in rows if r["split"] == split]
        verdicts = evaluate(part, judge)
        s = summary(part, verdicts)
        print(
            f"{split:8s} n={s['n']:3d}  accuracy={s['accuracy']:.3f}  "
            f"kappa={s['kappa']:.3f}  errors={s['errors']}"
        )
        if interval is not None:
            low, high = interval([r["label"] for r in part], verdicts)
            print(f"         kappa 95% bootstrap interval: [{low:.3f}, {high:.3f}]")
        if args.errors:
            for r, v in zip(part, verdicts, strict=True):
                if v != r["label"]:
                    print(f"   {r['id']}: label {r['label']}, judge {v}")


if __name__ == "__main__":
    main()
