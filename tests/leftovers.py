"""Runs a command, then ends the processes it left behind, and only those (Linux).

``python -m tests.leftovers COMMAND...`` makes itself a child subreaper
(``PR_SET_CHILD_SUBREAPER``) before it starts COMMAND. Daemons that COMMAND starts and
leaves running (``ray start`` returns while its head or worker node keeps running) are
then adopted by this process instead of by init, so they stay its descendants. When
COMMAND ends, or this process is told to terminate, it terminates those descendants by
process id. ``ray stop`` is not an option in tests: it ends every Ray process of the
user on the machine. The exit code is COMMAND's.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
from contextlib import suppress

import psutil

PR_SET_CHILD_SUBREAPER = 36  # from <linux/prctl.h>


def become_subreaper() -> None:
    """Make orphaned descendants of this process its children, not init's."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"prctl(PR_SET_CHILD_SUBREAPER): {os.strerror(error)}")


def end_descendants(grace: float = 10.0) -> None:
    """Terminate every descendant of this process, SIGKILL those still there after
    ``grace`` seconds, and repeat until none is left (the orphans of a killed process
    become this process's children, to be reaped here)."""
    me = psutil.Process()
    while descendants := me.children(recursive=True):
        for process in descendants:
            with suppress(psutil.NoSuchProcess):
                process.terminate()
        _, alive = psutil.wait_procs(descendants, timeout=grace)
        for process in alive:
            with suppress(psutil.NoSuchProcess):
                process.kill()
        psutil.wait_procs(alive, timeout=grace)


def _terminated(signum: int, frame: object) -> None:
    sys.exit(128 + signum)  # unwinds through main's ``finally``


def main(command: list[str]) -> int:
    become_subreaper()
    signal.signal(signal.SIGTERM, _terminated)
    try:
        return subprocess.call(command)
    finally:
        end_descendants()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
