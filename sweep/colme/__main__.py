"""Run one Private-ColME configuration and print its MSE against the baselines.

Usage: ``python -m sweep.colme [key=value ...]``, e.g.
``python -m sweep.colme n_agents=50 mechanism=pm2 decision.refresh=every_step``.
Without arguments it runs the paper's scenario at a small scale (M = 30, t_max = 5000).
"""

from __future__ import annotations

import ast
import sys
import time
from typing import Any

import pandas as pd

from . import ConfigError, simulate

QUICKSTART: dict[str, Any] = {
    "replicates": 8,
    "seed": 1,
    "n_agents": 30,
    "t_max": 5000,
    "checkpoints": [1, 10, 100, 1000, 5000],
    "baselines": ["local", "ideal", "oracle"],
}


def parse(arguments: list[str]) -> dict[str, Any]:
    """``key=value`` pairs to keyword options; dotted keys fill nested groups."""
    options: dict[str, Any] = dict(QUICKSTART)
    for argument in arguments:
        key, sep, text = argument.partition("=")
        if not sep:
            raise ConfigError(f"{argument}: expected key=value")
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = text
        group, dot, name = key.partition(".")
        if dot:
            options.setdefault(group, {})[name] = value
        else:
            options[key] = value
    return options


def main(arguments: list[str]) -> int:
    try:
        options = parse(arguments)
        start = time.perf_counter()
        frame = simulate(**options)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - start
    table = (
        frame.groupby(["t", "method", "source"]).mse.mean().unstack(["method", "source"])
    )
    with pd.option_context("display.width", 120, "display.float_format", "{:.3e}".format):
        print(f"Mean squared error over {options['replicates']} replicates "
              f"(M = {options['n_agents']}, t_max = {options['t_max']}):")
        print(table)
    print(f"{elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
