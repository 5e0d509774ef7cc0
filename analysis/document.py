"""Documents rendered from the stored results of presets: the reproduction of the papers.

``python -m analysis reproduce ROOT --out docs`` writes ``docs/reproduction.md``,
``python -m analysis continual ROOT --out docs`` ``docs/continual.md`` and
``python -m analysis decentralized ROOT --out docs`` ``docs/decentralized.md``
(:func:`analysis.commands.documents`). A document's frame
(``analysis/templates/<name>``) holds its own
prose and names the studies whose sections it shows, ``{{>colme}}``; each section
(:class:`~analysis.study.Section`) brings its template, the presets it reads (one results
directory each under ``ROOT``, as ``python -m sweep -m +experiment=<preset>
results_dir=ROOT/<preset>`` writes it), the figures it draws into ``OUT/figures/`` and the
values that fill it.

Templates are Markdown with four kinds of tags, a subset of Mustache's:

- ``{{name}}`` is replaced by the text computed under ``name``;
- ``{{#name}}...{{/name}}`` keeps its content when ``name`` is true (``True`` or a
  non-empty text), ``{{^name}}...{{/name}}`` when it is false: prose whose conclusion
  depends on the numbers is chosen by the comparison, never typed;
- a block tag alone on its line takes the line's break with it;
- ``{{>family}}``, alone on its line, is the section of that family's study.

A tag naming no computed value, a value missing where a tag is kept, and a figure the
document shows but that was not drawn are errors, so the document cannot silently keep
a stale number.

By default only runs of the presets' sizes are read: those the preset's file
(``conf/experiment/<preset>.yaml``) sets, never repeated in code (:class:`Preset`);
``any_size=True`` reads whatever sizes the directories hold (e.g. small test runs), and
the document then says so at its top (``{{#other_sizes}}``, ``{{sizes_found}}``).
"""

from __future__ import annotations

import argparse
import functools
import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sweep.target import AUTO

from .claims import (
    CHECK_HEADER,
    PROCEDURES,
    Claim,
    Verdict,
    adjust,
    claims_table,
    markdown_table,
    multiplicity_text,
    rules_text,
    tally,
    tally_text,
)
from .commands import documents
from .load import MissingData
from .needs import needs, needs_table
from .numbers import duration
from .plot import save, unclaim
from .study import Preset, Results, Section, Study, get_study, views_of

Values = dict[str, Any]


# -- Reading a curve -----------------------------------------------------------------------

def checkpoint(curve: pd.Series, t: float | None = None) -> int:
    """The checkpoint of ``curve`` nearest ``t`` on a log scale (default: the last)."""
    times = curve.index.to_numpy()
    return int(times[-1] if t is None else times[np.abs(np.log(times / t)).argmin()])


def at(curve: pd.Series, t: float | None = None) -> float:
    """The value of ``curve`` at the checkpoint nearest ``t`` (default: the last)."""
    return float(curve[checkpoint(curve, t)])


# -- What every document states ---------------------------------------------------------

def busy(intervals: Iterable[tuple[float, float]]) -> float:
    """The length of the union of ``intervals`` (start, end): the time some cell was being
    computed, without the gaps between runs that added cells to a directory later."""
    total, reached = 0.0, -math.inf
    for start, end in sorted(intervals):
        if end > reached:
            total += end - max(start, reached)
            reached = end
    return total


def cell_provenance(results: Results, preset: str) -> dict[str, dict[str, Any]]:
    """The provenance record of each cell of ``preset`` read (by cell id): the code's
    version and commit, and when and for how long (``wall_seconds``, its pieces' compute
    time summed) the cell was computed (:meth:`sweep.store.ResultsStore.records`)."""
    from sweep.store import ResultsStore

    cells = set(results.summaries[preset].cell_id.unique())
    store = ResultsStore(results.root / preset)
    store.scan()
    return {cell: record for cell, record in store.records().items() if cell in cells}


def provenance_values(results: Results) -> Values:
    """The runs' provenance: cells, compute time, elapsed time and the code's version."""
    table = []
    for preset in results.summaries:
        records = list(cell_provenance(results, preset).values())
        commits = sorted({(r.get("git_commit") or "unknown")[:10] for r in records})
        versions = sorted({r.get("version", "unknown") for r in records})
        table.append([f"`{preset}`", str(len(records)),
                      duration(sum(r["wall_seconds"] for r in records)),
                      duration(busy((r["started"], r["finished"]) for r in records)),
                      ", ".join(versions), ", ".join(commits)])
    return {"provenance": markdown_table(
        ["results", "cells", "compute time", "elapsed", "dpsweep", "commit"], table)}


def sizes_found(results: Results, preset: Preset) -> tuple[dict[str, list[Any]], bool]:
    """The sizes (and runs) of the preset's cells read, and whether they are the preset's."""
    summary = results.summaries[preset.name]
    found, same = {}, True
    for column, wanted in {**preset.sizes, "replicates": preset.replicates}.items():
        found[column] = sorted(summary[column].dropna().unique())
        if wanted == AUTO:  # a precision target: each cell its own count, all printed
            continue
        if column == "replicates":  # extended within the preset's budget (analysis.needs)
            same &= all(wanted <= runs <= preset.most_runs for runs in found[column])
        else:
            same &= set(found[column]) <= set(wanted if isinstance(wanted, list) else [wanted])
    return found, same


def size_values(results: Results, sections: Iterable[Section]) -> Values:
    """The sizes of the runs read, and whether they are other than the presets'."""
    found, other = [], False
    for section in sections:
        names = {**section.sizes, "replicates": "runs"}
        for preset in section.presets:
            sizes, same = sizes_found(results, preset)
            other |= not same
            parts = [f"{names[c]} = {'/'.join(f'{v:,}' for v in present)}"
                     for c, present in sizes.items()]
            found.append(f"{preset.name}: {', '.join(parts)}")
    return {"other_sizes": other, "sizes_found": "; ".join(found)}


def claim_values(values: Mapping[str, Any]) -> Values:
    """``values`` with each list of claims rendered as its table: the papers' claims
    (``<stem>_claims``), tallied under ``<stem>_tally`` ("7 agree, 2 disagree, 3
    inconclusive (of 12)"), and the project's own checks (``<stem>_checks``), never
    tallied."""
    rendered = dict(values)
    for key, value in values.items():
        if key.endswith("_claims"):
            rendered[key] = claims_table(value)
            rendered[f"{key.removesuffix('_claims')}_tally"] = tally_text(value)
        elif key.endswith("_checks"):
            rendered[key] = claims_table(value, CHECK_HEADER)
    return rendered


def tally_values(tallied: Mapping[str, Sequence[Claim]], procedure: str) -> Values:
    """The declared rules and multiplicity procedure (``verdict_rules``) and the table of
    each paper's verdicts by statement (``tallies``), from its sections' claims."""
    rows = []
    for paper, claims in tallied.items():
        counts = tally(claims)
        rows.append([paper, *(str(counts[v]) for v in Verdict), str(sum(counts.values())),
                     str(len(claims))])
    header = ["paper", *(v.value for v in Verdict), "statements", "cases"]
    tests = sum(c.adjusted is not None for claims in tallied.values() for c in claims)
    return {"verdict_rules": f"{rules_text()}\n\n{multiplicity_text(procedure, tests)}",
            "tallies": markdown_table(header, rows)}


def computed_sections(text: str, root: str | Path, any_size: bool
                      ) -> tuple[list[Study], Results, list[Values]]:
    """The studies whose sections the frame ``text`` shows, their presets' results under
    ``root``, and each section's values, with the claims of all of them (the lists under
    ``<stem>_claims``) adjusted together by the frame's multiplicity procedure."""
    studies = sections_of(text)
    results = Results.read(root, studies, any_size)
    computed = [study.section.values(results) for study in studies]
    keys = [(i, key) for i, values in enumerate(computed) for key in values
            if key.endswith("_claims")]
    adjusted = iter(adjust([c for i, key in keys for c in computed[i][key]],
                           multiplicity(text)))
    for i, key in keys:
        computed[i][key] = [next(adjusted) for _ in computed[i][key]]
    return studies, results, computed


# -- Templates ----------------------------------------------------------------------------

TAG = re.compile(r"\{\{\s*([#^/]?)\s*(\w+)\s*\}\}")
BLOCK = re.compile(r"\{\{([#^])(\w+)\}\}(.*?)\{\{/\2\}\}", re.S)
STANDALONE = re.compile(r"^[ \t]*(\{\{[#^/]\w+\}\})[ \t]*\n", re.M)
PARTIAL = re.compile(r"^[ \t]*\{\{>\s*([\w.:]+)\s*\}\}[ \t]*\n", re.M)
#: A frame's declaration of its multiplicity procedure (:data:`~analysis.claims.PROCEDURES`).
MULTIPLICITY = re.compile(r"^<!-- multiplicity: (\w+) -->$", re.M)
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


class TemplateError(ValueError):
    """The template names a value that was not computed, or a tag was left unfilled."""


def fill(template: str, values: Mapping[str, str | bool]) -> str:
    """The template with its blocks resolved and its placeholders replaced."""
    unknown = sorted({tag for _, tag in TAG.findall(template)} - set(values))
    if unknown:
        raise TemplateError(f"no value computed for {', '.join(unknown)}")
    text = STANDALONE.sub(r"\1", template)
    while block := BLOCK.search(text):
        kind, key, content = block.groups()
        kept = bool(values[key]) == (kind == "#")
        text = text[:block.start()] + (content if kept else "") + text[block.end():]

    def replace(tag: re.Match[str]) -> str:
        value = values[tag[2]]
        if tag[1] or not isinstance(value, str):
            raise TemplateError(f"{tag[0]} is not a text placeholder, or has no value here")
        return value

    text = TAG.sub(replace, text)
    if "{{" in text or "}}" in text:
        raise TemplateError(f"unfilled tag near {text[text.find('{{'):][:60]!r}")
    return text


def frame(name: str) -> str:
    """The frame template ``analysis/templates/<name>``, shipped with the package."""
    return (resources.files("analysis") / "templates" / name).read_text("utf-8")


def multiplicity(text: str) -> str:
    """The multiplicity procedure the frame ``text`` declares
    (``<!-- multiplicity: bh -->``); :class:`TemplateError` if it declares none or one
    not in :data:`~analysis.claims.PROCEDURES`."""
    declared = MULTIPLICITY.search(text)
    if declared is None or declared[1] not in PROCEDURES:
        raise TemplateError("a document's frame declares its multiplicity procedure on a "
                            f"line <!-- multiplicity: NAME -->, NAME one of "
                            f"{', '.join(PROCEDURES)}")
    return declared[1]


def sections_of(text: str) -> list[Study]:
    """The studies whose sections the frame ``text`` shows, in order; :class:`TemplateError`
    for a family without a study or a study without a section."""
    found = []
    for family in PARTIAL.findall(text):
        study = get_study(family)
        if study is None or study.section is None:
            raise TemplateError(f"{{{{>{family}}}}}: the family {family} has no study with a "
                                "document section")
        found.append(study)
    return found


def write(text: str, figures: Iterable[tuple[str, Callable[[], Any]]], out_dir: Path,
          name: str) -> Path:
    """Draw each ``(figure, draw)`` into ``out_dir/figures/<figure>.png``, then write
    ``text`` to ``out_dir/<name>``; returns its path. :class:`TemplateError` if the text
    shows an image that was not drawn."""
    for figure, draw in figures:
        save(draw(), out_dir / "figures" / figure, formats=("png",))
    missing = [image for image in IMAGE.findall(text) if not (out_dir / image).is_file()]
    if missing:
        raise TemplateError(f"the document shows {', '.join(missing)}, which was not drawn")
    path = out_dir / name
    path.write_text(text, encoding="utf-8")
    return path


def render(name: str, root: str | Path, out_dir: str | Path = "docs", any_size: bool = False,
           text: str | None = None) -> Path:
    """Render the document ``name`` (``reproduction.md``) from the presets' results under
    ``root``: the frame ``text`` (default: the shipped ``analysis/templates/<name>``) with
    its sections.

    Draws the sections' figures into ``out_dir/figures/`` (PNG) and writes
    ``out_dir/<name>``; returns its path. :class:`MissingData` if a preset's results are
    absent or lack a series the document states, :class:`TemplateError` if a placeholder
    stays unfilled.
    """
    text = frame(name) if text is None else text
    studies, results, by_section = computed_sections(text, root, any_size)
    sections = [study.section for study in studies]
    values: Values = {**size_values(results, sections), **provenance_values(results),
                      "root": str(root), "out": str(out_dir)}
    procedure = multiplicity(text)
    tallied: dict[str, list[Claim]] = {}
    for section, computed in zip(sections, by_section, strict=True):
        tallied.setdefault(section.paper, []).extend(
            claim for key, claims in computed.items() if key.endswith("_claims")
            for claim in claims)
        values.update(claim_values(computed))
    values.update(tally_values(tallied, procedure))
    values["enough_data"] = needs_table(needs(studies, results, by_section))
    whole = PARTIAL.sub(lambda tag: get_study(tag[1]).section.text(), text)
    figures = ((figure, functools.partial(_figure, study, results, preset, figure,
                                          not any_size))
               for study in studies for preset in study.section.presets
               for figure in preset.figures)
    return write(fill(whole, values), figures, Path(out_dir), name)


def document_claims(name: str, root: str | Path, any_size: bool = False) -> list[Claim]:
    """The papers' claims of the document ``name`` from the presets' results under
    ``root``, adjusted by its multiplicity procedure, as :func:`render` prints them (no
    figure drawn, nothing written)."""
    computed = computed_sections(frame(name), root, any_size)[2]
    return [claim for values in computed for key, found in values.items()
            if key.endswith("_claims") for claim in found]


def _figure(study: Study, results: Results, preset: Preset, figure: str, paper: bool) -> Any:
    drawn = {**views_of(study), **study.section.figures}[figure]
    grid = drawn(results.source(preset.name, study.family, paper))
    # Drawn from runs of other sizes, a figure does not claim to be the paper's.
    if not (paper or getattr(grid, "paper_sizes", False) or sizes_found(results, preset)[1]):
        unclaim(grid.figure)
    return grid


def command(argv: Sequence[str], name: str) -> int:
    """``python -m analysis NAME ROOT [--out DIR] [--any-size]``: render the document
    ``NAME`` (:func:`~analysis.commands.documents`) from the results of its presets under
    ROOT."""
    document = documents()[name]
    studies = sections_of(frame(document))
    presets = [p.name for study in studies for p in study.section.presets]
    parser = argparse.ArgumentParser(
        prog=f"python -m analysis {name}",
        description=f"Render {document} and its figures from the presets' results.")
    parser.add_argument("root", help="directory holding one results directory per preset: "
                        + ", ".join(presets))
    parser.add_argument("--out", default="docs", help="output directory (default: docs)")
    parser.add_argument("--any-size", action="store_true",
                        help="read runs of any size, not only the presets' (e.g. small test "
                        "runs); the document says so at its top")
    args = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")  # the command writes files; it never opens a window
    try:
        print(render(document, args.root, args.out, args.any_size))
    except MissingData as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0
