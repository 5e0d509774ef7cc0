"""A small stored results directory of every built-in family, kept in the repository
(tests/data/stored/), so that a change of how cell ids are derived cannot go unseen:
:mod:`tests.test_stored_ids` recomputes each stored cell's id from its recorded options.

Regenerate it (only after a deliberate change of a family's identity, with that family's
version bumped) with::

    python -m tests.stored_results

which runs these grids through the command line, one compacted file per family.
"""

from __future__ import annotations

import shutil
import sys

from .sweep_reference import ROOT, run_cli

STORED = ROOT / "tests" / "data" / "stored"

#: Tiny cells of each family: defaults and options set (options added to a version's
#: results among them, set and at their defaults).
GRIDS = {
    "colme": ["n_agents=4", "t_max=20", "checkpoints=2", "welch_dof=paper,releases",
              "variance=inferred", "baselines=[local]"],
    "network": ["graph=ring", "graph.n_nodes=7", "rounds=5", "checkpoints=2",
                "budgets=homogeneous,waterfilling", "method=mvue,ol"],
    "continual": ["n_users=8", "max_samples=4", "t_max=32", "checkpoints=2",
                  "method=alg2,alg5", "noise_scale=null,0.5"],
    "inference": ["graph.n_nodes=3", "method=rizk",
                  "rizk_clip=score,l1", "iterations=3", "rounds=2", "checkpoints=2"],
    "decentralized": ["graph.n_nodes=20", "graph.degree=4", "t_max=10", "checkpoints=2",
                      "method=c_colme,b_colme", "decision.irrevocable=true,false"],
}


def main() -> None:
    shutil.rmtree(STORED, ignore_errors=True)
    for family, grid in GRIDS.items():
        done = run_cli(["-m", f"family={family}", *grid, "replicates=1", "seed=3",
                        "executor=serial", f"results_dir={STORED}"], ROOT)
        if done.returncode:
            sys.exit(done.stderr)
    done = run_cli(["compact", str(STORED)], ROOT)
    if done.returncode:
        sys.exit(done.stderr)
    (STORED / ".lock").unlink()
    print(f"wrote {STORED.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
