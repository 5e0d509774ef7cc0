"""The papers' vocabulary for series and axes (Private-ColME, Secs. III-VII; DP
distributed estimation on networks, Secs. 3-5)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

NAMES: dict[str, dict[str, str]] = {
    "mechanism": {"pm1": "PM-I", "pm2": "PM-II", "none": "no privacy"},
    "weights": {"last": "non-MoM", "mom": "MoM", "wmom": "wMoM"},
    "schedule": {"rr": "RR", "rrr": "rRR"},
    "variance": {"known": "known variance", "shared": "Sch-Var-1", "inferred": "Sch-Var-2",
                 "inferred_bayes": "Sch-Var-2 (Bayesian)"},
    "noise": {"gaussian": "Gaussian", "laplace": "Laplace"},
    "method": {"colme": "Algorithm 1", "oracle": "oracle", "local": "local", "ideal": "ideal",
               "mvue": "MVUE", "ol": "OL", "mvue_fresh_noise": "MVUE, noise every round",
               "ol_alg4": "Alg. 4 under Network DP", "rizk": "Rizk et al. (MVUE)",
               "rizk_ol": "Rizk et al. (OL)"},
    "privacy": {"none": "non-private", "signal": "Signal DP", "network": "Network DP"},
    "source": {"simulated": "simulated", "bound": "bound (Thms 3.1, 4.1, 4.2)",
               "exact": "exact RMS cost of privacy"},
    "graph": {"geometric": "random geometric", "newman_watts_strogatz": "Newman–Watts–Strogatz",
              "watts_strogatz": "Watts–Strogatz", "erdos_renyi": "Erdős–Rényi",
              "barabasi_albert": "Barabási–Albert", "edgelist": "edge list"},
}
AXES = {
    "t": "time t",
    "mse": "average mean squared error",
    "epsilon": "privacy level ε",
    "n_agents": "number of agents M",
    "false_exclusion": "false-exclusion rate (type I)",
    "false_inclusion": "false-inclusion rate (type II)",
    "ratio": "MSE ratio",
    "total_error": "total error E‖ν_t − m·1‖₂",
    "cost_of_privacy": "cost of privacy E‖ν_t − μ_t‖₂",
    "cost_of_decentralization": "cost of decentralization E‖μ_t − m·1‖₂",
}
#: Default parts of a scheme's label, in order.
SCHEME = ("noise", "mechanism", "weights", "schedule", "variance")


SYMBOLS = {"epsilon": "ε", "delta": "δ", "n_agents": "M", "t_max": "t_max", "sigma": "σ",
           "n_classes": "Γ", "n_nodes": "n", "rounds": "T"}


def name(column: str, value: object) -> str:
    """A value in the paper's words (``pm1`` -> ``PM-I``, ε = 0.5), or ``column=value``."""
    if column in NAMES:
        return NAMES[column].get(str(value), str(value))
    if column in SYMBOLS:
        return f"{SYMBOLS[column]} = {value:g}" if isinstance(value, float) else (
            f"{SYMBOLS[column]} = {value}")
    return f"{column}={value}"


def add_scheme(frame: pd.DataFrame, parts: Sequence[str] = SCHEME) -> pd.DataFrame:
    """A ``scheme`` column naming each series with the parts that vary in ``frame``.

    Series of a scheme are Algorithm 1 (``colme``, or the simulated ``oracle`` estimator)
    and the analytic oracle of Prop. 3. They are named by the parts that take more than
    one value among them (e.g. ``PM-I, non-MoM, RR``); the analytic oracle gets an
    ``oracle:`` prefix when Algorithm 1 is there too. Baselines are named by their method,
    with ``(analytic)`` for analytic local and ideal rows.
    """
    analytic = frame.source == "analytic"
    algorithm = (frame.method == "colme") | ((frame.method == "oracle") & ~analytic)
    oracle = (frame.method == "oracle") & analytic
    schemed = algorithm | oracle
    varying = [p for p in parts if p in frame and frame.loc[schemed, p].nunique() > 1]
    if varying:
        joined = frame[varying[0]].map(lambda v: name(varying[0], v)).astype(str)
        for part in varying[1:]:
            joined = joined + ", " + frame[part].map(lambda v, p=part: name(p, v)).astype(str)
    else:
        joined = pd.Series("Algorithm 1", index=frame.index)
    labels = frame.method.map(lambda m: name("method", m)).astype(object)
    labels[analytic & ~oracle] = labels[analytic & ~oracle] + " (analytic)"
    labels[algorithm] = joined[algorithm]
    prefix = "oracle: " if algorithm.any() or not varying else ""
    labels[oracle] = prefix + joined[oracle] if varying else "oracle"
    return frame.assign(scheme=labels)
