"""How a family's results are named in its paper: one :class:`Vocabulary` per study."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Vocabulary:
    """How one family's results are named in its paper.

    ``names`` label values (column → value → label), ``axes`` label columns on axes,
    ``symbols`` name parameters in titles (``epsilon`` → ε). ``curves`` are the methods
    drawn as curves by default, the family's algorithm; ``schemed`` the methods whose
    series are named by their scheme (default: ``curves``); ``baselines`` those drawn as
    grey reference lines; ``scheme`` the options that name a series; ``facets`` the
    options drawn as panels before any other (numeric options are panels anyway);
    ``references`` the sources of an algorithm's rows drawn as its reference lines
    (e.g. a bound); ``metric`` the default quantity on the y axis; ``dashes`` the line
    style of a reference line, by its method or source (a baseline, a bound); ``colours``
    the colour of a curve, by the value that names it (a method, a mechanism, a scheme), so
    that a method keeps one colour in every figure of its family.
    """

    names: dict[str, dict[str, str]] = field(default_factory=dict)
    axes: dict[str, str] = field(default_factory=dict)
    symbols: dict[str, str] = field(default_factory=dict)
    curves: tuple[str, ...] = ()
    schemed: tuple[str, ...] = ()
    baselines: tuple[str, ...] = ()
    scheme: tuple[str, ...] = ()
    facets: tuple[str, ...] = ()
    references: tuple[str, ...] = ()
    metric: str | None = None
    dashes: dict[str, object] = field(default_factory=dict)
    colours: dict[str, object] = field(default_factory=dict)

    def __or__(self, other: Vocabulary) -> Vocabulary:
        """This vocabulary, with ``other``'s entries taking precedence."""
        names = {c: {**self.names.get(c, {}), **other.names.get(c, {})}
                 for c in {**self.names, **other.names}}
        return Vocabulary(names, {**self.axes, **other.axes}, {**self.symbols, **other.symbols},
                          other.curves or self.curves, other.schemed or self.schemed,
                          other.baselines or self.baselines, other.scheme or self.scheme,
                          other.facets or self.facets, other.references or self.references,
                          other.metric or self.metric, {**self.dashes, **other.dashes},
                          {**self.colours, **other.colours})
