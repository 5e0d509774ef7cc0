"""The documents ``python -m analysis`` renders, by command: the frame template of each,
found where it is (``analysis/templates/<file>.md``, filled by
:func:`analysis.document.render`), never listed. A frame's first line names its command
(``<!-- Rendered by `python -m analysis NAME ...``); a new document is a new frame, and
edits nothing. Apart from the document engine, so that the command line's help and its
argument errors import nothing else."""

import functools
import re
from importlib import resources

#: A frame's first line: the command that renders it.
RENDERED_BY = re.compile(r"^<!-- Rendered by `python -m analysis (\w+) ")


@functools.cache
def documents() -> dict[str, str]:
    """The documents, by command: the frame template each renders."""
    found = {}
    for frame in sorted(resources.files("analysis").joinpath("templates").iterdir(),
                        key=lambda f: f.name):
        if not frame.name.endswith(".md"):
            continue
        with frame.open(encoding="utf-8") as text:
            command = RENDERED_BY.match(text.readline())
        if command is None:
            raise ValueError(f"analysis/templates/{frame.name}: its first line must be "
                             "<!-- Rendered by `python -m analysis NAME ...")
        found[command[1]] = frame.name
    return found
