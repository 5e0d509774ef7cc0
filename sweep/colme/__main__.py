"""Run one Private-ColME configuration and print its MSE against the baselines.

Usage: ``python -m sweep.colme [key=value ...]``, e.g.
``python -m sweep.colme n_agents=50 mechanism=pm2 decision.refresh=every_step``.
Without arguments it runs the paper's scenario at a small scale (M = 30, t_max = 5000).
The arguments are Hydra overrides of ``python -m sweep`` (one parser, the same keys and
types); the cell is computed in this process and nothing is stored.
"""

from __future__ import annotations

import sys
import time

import pandas as pd

from ..cli import CONFIG_MODULE, reported
from ..execute import simulate
from ..results import EXECUTION_KEYS

#: The small scenario run without arguments; any argument overrides it.
QUICKSTART = {"replicates": "8", "seed": "1", "n_agents": "30", "t_max": "5000",
              "checkpoints": "5", "baselines": "[local,ideal,oracle]"}


def main(arguments: list[str]) -> int:
    from hydra import compose, initialize_config_module
    from omegaconf import OmegaConf

    overrides = {**QUICKSTART, **dict(a.partition("=")[::2] for a in arguments)}
    with reported():
        with initialize_config_module(CONFIG_MODULE, version_base="1.3"):
            config = OmegaConf.to_container(compose(
                "config", overrides=["family=colme", *(f"{k}={v}" for k, v in overrides.items())]),
                resolve=True)
        start = time.perf_counter()
        frame = simulate(**{k: v for k, v in config.items() if k not in EXECUTION_KEYS})
    elapsed = time.perf_counter() - start
    table = (
        frame.groupby(["t", "method", "source"]).mse.mean().unstack(["method", "source"])
    )
    with pd.option_context("display.width", 120, "display.float_format", "{:.3e}".format):
        print(f"Mean squared error over {config['replicates']} replicates "
              f"(M = {config['n_agents']}, t_max = {config['t_max']}):")
        print(table)
    print(f"{elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
