"""The reference's runs: the public C++17 code of Galante, Neglia & Leonardi (AAAI 2025),
summarized at the checkpoints of the platform's runs.

The reference is not part of the platform and none of it is shipped: it is built and run
outside the repository (commit c782c29, ``colme_scalable_algorithms/``, g++ -O3, its
default experiment at N = 10³ and 10⁴, one seed per process, as its random engine is
seeded once per process). Each run writes ``preliminary.csv``: per iteration ``iter``
(``iter`` + 1 samples per agent, our t) the fractions of agents within 0.1 of their
class mean of the estimate (``pe``), the local mean (``pl``) and the oracle (``po``),
and the counts of lost and wrong links (``lost_neigh``, ``wrong_neigh``).

``python -m analysis.studies.decentralized.reference RUNS [--out FILE]`` reads
``RUNS/<algorithm>/N<n>/<seed>/preliminary.csv`` (``consensus``,
``belief_propagation_v1``) and writes the mean and standard deviation over the complete
runs of each quantity at each checkpoint of the platform's default grid (100
log-spaced steps of 2,000) to ``FILE`` (default: :data:`STORED`, shipped with the
study), which the section's agreement tables read (:func:`stored`). The file's header
says where its numbers come from.
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from sweep.decentralized.api import DecentralizedConfig

#: The summary of the reference's runs shipped with the study.
STORED = "reference_runs.csv"
#: The reference's program for each of our methods.
PROGRAMS = {"c_colme": "consensus", "b_colme": "belief_propagation_v1"}
#: Each column of the reference's log as (row of ours, metric): the estimate's rows are
#: the algorithm's, the oracle's ``<algorithm>_oracle``.
COLUMNS = {"pe": ("{algorithm}", "within"), "pl": ("local", "within"),
           "po": ("{algorithm}_oracle", "within"), "wrong_neigh": ("{algorithm}", "wrong_links"),
           "lost_neigh": ("{algorithm}", "lost_links")}
HEADER = """\
# The reference's runs (Galante, Neglia & Leonardi, AAAI 2025; public C++17 code, commit
# c782c29, colme_scalable_algorithms/), built with g++ -O3 and run outside the repository,
# one seed per process (seeds 111, 222, ..., 999, 101; at N = 1,000 also 1, ..., 20), its
# default experiment: random 10-regular graph by its configuration model, two equiprobable
# classes of means 0 and 1, sigma = 2, delta = 0.1, 2,000 iterations. Per checkpoint t
# (iteration t - 1), the mean and standard deviation over the runs of: within, the fraction
# of agents within 0.1 of their class mean (rows: the algorithm's estimate, local, the
# oracle); wrong_links and lost_links of the algorithm. Written by
# python -m analysis.studies.decentralized.reference RUNS.
"""


def summarize_runs(runs: Path, times: np.ndarray) -> pd.DataFrame:
    """The mean and standard deviation over the complete runs under ``runs`` of each
    quantity of the reference's logs at the steps ``times``: one row per (algorithm,
    n_nodes, method, metric, t), with the number of ``runs``."""
    frames = []
    for algorithm, program in PROGRAMS.items():
        for directory in sorted((runs / program).glob("N*")):
            logs = [pd.read_csv(path) for path in sorted(directory.glob("*/preliminary.csv"))]
            # A run stopped early (killed, or still running) is left out whole.
            logs = [log for log in logs if log["iter"].max() + 1 >= times.max()]
            if not logs:
                continue
            for column, (method, metric) in COLUMNS.items():
                values = np.stack([log.set_index("iter").loc[times - 1, column].to_numpy(float)
                                   for log in logs])
                frames.append(pd.DataFrame({
                    "algorithm": algorithm, "n_nodes": int(directory.name[1:]),
                    "method": method.format(algorithm=algorithm), "metric": metric,
                    "t": times, "runs": len(logs), "mean": values.mean(axis=0),
                    "sd": values.std(axis=0, ddof=1)}))
    if not frames:
        raise FileNotFoundError(f"no complete runs under {runs} ({', '.join(PROGRAMS.values())})")
    return pd.concat(frames, ignore_index=True)


def stored() -> pd.DataFrame:
    """The summary of the reference's runs shipped with the study (:data:`STORED`)."""
    with (resources.files(__package__) / STORED).open("r", encoding="utf-8") as file:
        return pd.read_csv(file, comment="#")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m analysis.studies.decentralized.reference",
        description="Summarize the reference's runs at the platform's checkpoints.")
    parser.add_argument("runs", type=Path, help="directory of the reference's runs: "
                        "<algorithm>/N<n>/<seed>/preliminary.csv")
    parser.add_argument("--out", type=Path,
                        default=Path(str(resources.files(__package__) / STORED)),
                        help="the file to write (default: the one shipped with the study)")
    args = parser.parse_args(argv)
    times = DecentralizedConfig.from_options().checkpoint_times()
    try:
        summary = summarize_runs(args.runs, times)
    except FileNotFoundError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    with args.out.open("w", encoding="utf-8") as file:
        file.write(HEADER)
        summary.to_csv(file, index=False, float_format="%.6g")
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
