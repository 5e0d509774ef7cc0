"""What the dpsweep plugin costs a Hydra app that does not use it.

Run: ``python benchmarks/bench_plugin.py [--repeat N]`` (about half a minute). Hydra
imports every module of the ``hydra_plugins`` namespace whenever any of its apps starts,
so an installed plugin is paid for by every app of the environment. A minimal app (one
``@hydra.main`` function, no configuration) runs N times (default 10) as a fresh process
in an empty temporary directory, with the plugin discoverable and with it hidden
(``sys.modules["hydra_plugins.dpsweep"] = None``: Hydra's scan then skips the package,
whatever the install), alternately, after one unmeasured run of each. Printed per
command (a trivial run, ``--help``): the median and best wall seconds of each, and the
difference of the medians. Goal (issue 28): at most 0.1 s.

tests/test_startup.py asserts which libraries the plugin's modules load; ``python -X
importtime`` shows where the time goes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

APP = """\
import hydra


@hydra.main(version_base=None)
def app(cfg):
    print("ran")


app()
"""

#: Runs the app in this interpreter; with HIDE set, Hydra cannot find the plugin first.
BOOT = """\
import os, runpy, sys
if os.environ.get("HIDE"):
    sys.modules["hydra_plugins.dpsweep"] = None
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""

#: (label, arguments of the app).
COMMANDS = [("trivial run", []), ("--help", ["--help"])]


def run(app: Path, arguments: list[str], hide: bool) -> float:
    """Wall seconds of one run of ``app`` in a fresh interpreter and an empty directory."""
    env = {**os.environ, "HIDE": "1" if hide else ""}
    with tempfile.TemporaryDirectory() as cwd:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", BOOT, str(app), *arguments], cwd=cwd, env=env,
                       check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="runs of each variant")
    args = parser.parse_args()
    print(f"{'command':<14}{'with: median':>14}{'best':>7}{'without: median':>17}{'best':>7}"
          f"{'difference':>12}")
    with tempfile.TemporaryDirectory() as scratch:
        app = Path(scratch) / "app.py"
        app.write_text(APP)
        for label, arguments in COMMANDS:
            times: dict[bool, list[float]] = {True: [], False: []}
            for attempt in range(args.repeat + 1):
                for hide in (False, True):  # alternately: slow phases hit both alike
                    seconds = run(app, arguments, hide)
                    if attempt:  # the first run warms the caches
                        times[hide].append(seconds)
            shown, hidden = (statistics.median(times[h]) for h in (False, True))
            print(f"{label:<14}{shown:>14.3f}{min(times[False]):>7.3f}{hidden:>17.3f}"
                  f"{min(times[True]):>7.3f}{shown - hidden:>+12.3f}", flush=True)
    print(f"\n{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at the end "
          "(other work on the machine slows every figure)")


if __name__ == "__main__":
    main()
