"""Private-ColME's figures (Sec. VII: Figs 2–4) and views of Algorithm 1's results.

Each paper figure is a :class:`~analysis.figures.Figure`: the rows it needs (``load``
filters, matching the ``+experiment=`` preset that produces them) and how to draw them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import pandas as pd
import seaborn as sns

from sweep.colme.api import INFERRED_FORMS

from ...figures import Figure
from ...labels import axis, name
from ...plot import MissingData, curves, derived

#: The paper's scenario (Sec. VII), required of a paper figure unless drawn at any size.
PAPER = {"class_means": "0.2,0.4,0.8", "sigma": 0.5, "distribution": "uniform",
         "epsilon": 1.0, "delta": 1e-6, "t_max": 30000}
#: Options that set a run's size.
SIZES = ("n_agents", "t_max")
#: A figure of the paper: its scenario and sizes required unless drawn at any size.
Paper = functools.partial(Figure, parameters=PAPER, sizes=SIZES)
#: The baselines the paper draws beside Algorithm 1 (Figs 2 (left), 3 and 4 (left)); the
#: oracle has figures of its own.
PAPER_BASELINES = ("local", "ideal")


def _fig2_left(rows: pd.DataFrame) -> sns.FacetGrid:
    return curves(rows, hue="scheme", style="schedule", parts=("mechanism", "weights"),
                  baselines=PAPER_BASELINES,
                  title="Fig. 2 (left): Algorithm 1 simulated, Gaussian noise, ε = 1")


#: Cells the product grids compute but the paper does not draw: PM-I with wMoM (the
#: paper's wMoM is a PM-II scheme).
NOT_IN_PAPER = {"mechanism": "pm1", "weights": "wmom"}


def _oracle(title: str) -> Callable[[pd.DataFrame], sns.FacetGrid]:
    def draw(rows: pd.DataFrame) -> sns.FacetGrid:
        return curves(rows, series=("oracle",), source="analytic", hue="scheme",
                      parts=("noise", "mechanism", "weights"), band=False, title=title,
                      note="The oracle is analytic (Prop. 3): exact curves, no bands.",
                      extra=NOT_IN_PAPER)
    return draw


def _fig3(xlim: tuple[float, float] | None) -> Callable[[pd.DataFrame], sns.FacetGrid]:
    def draw(rows: pd.DataFrame) -> sns.FacetGrid:
        # The grid is a product; the paper shows MoM with known variance only.
        rows = rows[(rows.weights == "last") | (rows.variance == "known")]
        return curves(rows, hue="scheme", parts=("weights", "variance"), xlim=xlim,
                      baselines=PAPER_BASELINES,
                      title="Fig. 3: Algorithm 1 with estimated variances, PM-I, RR"
                            + ("" if xlim is None else f", t ≤ {xlim[1]:g}"))
    return draw


def _fig3_forms(xlim: tuple[float, float] | None) -> Callable[[pd.DataFrame], sns.FacetGrid]:
    """Sch-Var-2 and its Bayesian form (paper and Jeffreys priors) under each reading of
    eq. (16) (``inferred_form``, a panel each), against known variance, non-MoM."""
    def draw(rows: pd.DataFrame) -> sns.FacetGrid:
        rows = rows[(rows.weights == "last")
                    & rows.variance.isin(["known", "inferred", "inferred_bayes"])]
        known = rows[rows.variance == "known"]
        # The paper's reading first, then the options' order.
        forms = [form for form in INFERRED_FORMS if form in set(rows.inferred_form)]
        # Known variance has no reading of eq. (16): its curve is drawn in every panel.
        rows = pd.concat([rows[rows.variance != "known"],
                          *(known.assign(inferred_form=form) for form in forms)])
        rows = rows.assign(inferred_form=pd.Categorical(rows.inferred_form, forms), scheme=[
            name("variance", v) + (", Jeffreys prior" if p == "jeffreys" else "")
            for v, p in zip(rows.variance.astype(str), rows.prior.astype(str), strict=True)])
        zoom = "" if xlim is None else f", {xlim[0]:g} ≤ t ≤ {xlim[1]:g}"
        return curves(rows, hue="scheme", col="inferred_form", xlim=xlim,
                      baselines=PAPER_BASELINES,
                      title="Fig. 3, Sch-Var-2 under three readings of eq. (16): PM-I, "
                            f"non-MoM, RR{zoom}")
    return draw


def _fig4_left(rows: pd.DataFrame) -> sns.FacetGrid:
    return curves(rows, hue="scheme", style="noise", parts=("mechanism",),
                  baselines=PAPER_BASELINES,
                  title="Fig. 4 (left): Algorithm 1 simulated, Gaussian and Laplace noise, "
                        "non-MoM, RR")


# n_agents selects as much as the schemes do: cells of other figures share the rest. It is
# a size, so a figure drawn at any size (paper=False) does not require it.
FIG2 = {"n_agents": 200, "noise": "gaussian", "variance": "known", "class_estimator": "test"}
FIG2_ORACLE = {"noise": "gaussian", "variance": "known", "schedule": "rr"}
FIG3 = {"n_agents": 200, "noise": "gaussian", "mechanism": "pm1", "schedule": "rr",
        "class_estimator": "test"}
# The figure as printed: eq. (16) and eq. (19) with the paper's prior.
FIG3_PRINTED = {**FIG3, "inferred_form": "eq16", "prior": "paper"}
FORMS = {"inferred_form": {"eq16", "weighted", "drop_first"}, "prior": {"paper", "jeffreys"}}
FIG4 = {"n_agents": 15, "weights": "last", "schedule": "rr", "variance": "known"}

FIGURES: dict[str, Figure] = {f.name: f for f in [
    Paper("fig2_left", "+experiment=fig2_left; PM-I and PM-II, MoM and non-MoM, RR and rRR",
           {**FIG2, "weights": ["last", "mom"]}, _fig2_left,
           {"mechanism": {"pm1", "pm2"}, "schedule": {"rr", "rrr"}}),
    Paper("fig2_middle", "+experiment=fig2_oracle; analytic oracle (Prop. 3), M = 200",
           {**FIG2_ORACLE, "n_agents": 200},
           _oracle("Fig. 2 (middle): analytic oracle (Prop. 3), Gaussian noise, RR"),
           {"mechanism": {"pm1", "pm2"}}),
    Paper("fig2_right", "+experiment=fig2_oracle; analytic oracle (Prop. 3), M = 30",
           {**FIG2_ORACLE, "n_agents": 30},
           _oracle("Fig. 2 (right): analytic oracle (Prop. 3), Gaussian noise, RR"),
           {"mechanism": {"pm1", "pm2"}}),
    Paper("fig3_left", "+experiment=fig3; known variance vs Sch-Var-1, Sch-Var-2",
           FIG3_PRINTED, _fig3(None),
           {"variance": {"known", "shared", "inferred", "inferred_bayes"}}),
    Paper("fig3_right", "+experiment=fig3; the same up to t = 2000",
           FIG3_PRINTED, _fig3((1, 2000)),
           {"variance": {"known", "shared", "inferred", "inferred_bayes"}}),
    Paper("fig3_forms", "+experiment=fig3; Sch-Var-2 under eq. (16), weighted, drop_first",
           FIG3, _fig3_forms(None), FORMS),
    Paper("fig3_forms_zoom", "+experiment=fig3; the same for 100 ≤ t ≤ 2000",
           FIG3, _fig3_forms((100, 2000)), FORMS),
    Paper("fig4_left", "+experiment=fig4; Gaussian vs Laplace noise, M = 15",
           {**FIG4, "class_estimator": "test"}, _fig4_left, {"noise": {"gaussian", "laplace"}}),
    Paper("fig4_right", "+experiment=fig4; analytic oracle with Laplace noise, M = 15",
           {**FIG4, "noise": "laplace"},
           _oracle("Fig. 4 (right): analytic oracle (Prop. 3), Laplace noise, non-MoM, RR"),
           {"mechanism": {"pm1", "pm2"}}),
]}


def _algorithm(summary: pd.DataFrame, view: str, varied: str | None = None) -> pd.DataFrame:
    """The summary, if it holds simulated rows of Algorithm 1 (over two values or more of
    ``varied``)."""
    rows = summary[(summary.method == "colme") & (summary.source == "simulated")]
    if rows.empty:
        raise MissingData(f"{view}: needs simulated rows of Algorithm 1 (family=colme, "
                          "replicates > 0)")
    if varied and rows[varied].nunique() < 2:
        # A number as the sweep gave it: M = 100, not the 100.0 of a mixed directory.
        value = rows[varied].iloc[0]
        raise MissingData(f"{view}: needs a sweep over at least two values of {varied}; the "
                          f"results have {varied} = "
                          f"{f'{value:g}' if isinstance(value, float) else value}")
    return summary


def privacy_utility(summary: pd.DataFrame, aggregate: str | Sequence[str] = ()
                    ) -> sns.FacetGrid:
    """MSE at the last checkpoint against ε, a curve per scheme through its cells, with
    each cell's local and ideal baselines as reference marks: the trade-off."""
    rows = _algorithm(summary, "privacy_utility", "epsilon")
    return curves(rows, x="epsilon", y="mse", series=("colme",), source="simulated",
                  aggregate=aggregate, ylabel="MSE at t = t_max",
                  title="Algorithm 1's MSE at t = t_max against the privacy level ε",
                  note="Each point is a cell's MSE at its last checkpoint t = t_max.")


def _first_reach(rows: pd.DataFrame, column: str, target: float) -> pd.Series:
    hit = rows[rows[column] <= target]
    return hit.groupby(["cell_id", "method", "source"]).t.min()


def time_to_target(summary: pd.DataFrame, target: float | None = None,
                   aggregate: str | Sequence[str] = ()) -> sns.FacetGrid:
    """First t at which a cell's mean MSE reaches ``target``, against M, a curve per
    scheme, with the same time for the baselines.

    The default target is ten times the smallest final MSE of Algorithm 1 over the
    cells given, which every cell of the best scheme reaches. The error bars are the
    first times the band's lower and upper edges reach the target; a cell that never
    reaches it within its t_max is not drawn.
    """
    rows = _algorithm(summary, "time_to_target", "n_agents")
    algorithm = rows[(rows.method == "colme") & (rows.source == "simulated")]
    how = ""
    if target is None:
        final = algorithm[algorithm.t == algorithm.groupby("cell_id").t.transform("max")]
        target = 10 * float(final.mse.min())
        how = ", ten times the smallest final MSE of Algorithm 1 over these cells"
    keys = ["cell_id", "method", "source"]
    times = pd.DataFrame({"t_target": _first_reach(rows, "mse", target),
                          # The lower edge reaches the target first.
                          "t_target_low": _first_reach(rows, "mse_low", target),
                          "t_target_high": _first_reach(rows, "mse_high", target)})
    # The band's upper edge may never reach it: the time is then at least t_max.
    times["t_target_high"] = times.t_target_high.fillna(
        rows.groupby(keys).t.max().reindex(times.index))
    cells = rows.drop_duplicates(keys).drop(columns=["t"]).merge(
        times.reset_index(), on=keys)
    missing = algorithm.cell_id.nunique() - cells[cells.method == "colme"].cell_id.nunique()
    if missing == algorithm.cell_id.nunique():
        raise MissingData(f"time_to_target: no cell of Algorithm 1 reaches MSE ≤ {target:.3g}")
    cells = derived(cells, rows, "t_target")
    note = (f"Target: MSE ≤ {target:.3g}{how}. The error bars are the first times the "
            "band's edges reach it.")
    if missing:
        never = f"{missing} cells never reach" if missing > 1 else "1 cell never reaches"
        note += f" {never} it within t_max and {'are' if missing > 1 else 'is'} not drawn."
    return curves(cells, x="n_agents", y="t_target", at=None, series=("colme",),
                  source="simulated", aggregate=aggregate,
                  ylabel=f"first t with MSE ≤ {target:.3g}", note=note,
                  title=f"First t at which Algorithm 1's MSE reaches {target:.3g}, against M")


def class_errors(summary: pd.DataFrame, aggregate: str | Sequence[str] = ()
                 ) -> sns.FacetGrid:
    """False-exclusion and false-inclusion rates of the class estimates against t: one
    line style per error, a colour per scheme, Wilson bands."""
    rows = _algorithm(summary, "class_errors")
    rows = rows[(rows.method == "colme") & (rows.source == "simulated")]
    errors = ("false_exclusion", "false_inclusion")
    long = pd.concat([rows.drop(columns=[c for e in errors for c in (e, f"{e}_low",
                                                                       f"{e}_high")])
                      .assign(error=axis(e), rate=rows[e], rate_low=rows[f"{e}_low"],
                              rate_high=rows[f"{e}_high"]) for e in errors],
                     ignore_index=True)
    long = derived(long, rows, "rate", "proportion")
    return curves(long, y="rate", style="error", series=("colme",), baselines=(),
                  aggregate=aggregate, log=(True, False), ylabel="rate over ordered pairs",
                  title="Algorithm 1's class estimates: false-exclusion and false-inclusion "
                        "rates against t")


def ratio(summary: pd.DataFrame, reference: str = "ideal",
          aggregate: str | Sequence[str] = ()) -> sns.FacetGrid:
    """MSE of Algorithm 1 divided by the reference's (``ideal`` or ``oracle``) at each t.

    The reference is the analytic curve of the same cell (for ``oracle``, Prop. 3 for the
    cell's own scheme), so the ratio tends to 1 where the scheme attains it; the band is
    the MSE's, divided by the same exact value.
    """
    view = f"ratio_to_{reference}"
    rows = _algorithm(summary, view)
    rows = rows[(rows.method == "colme") & (rows.source == "simulated")]
    references = summary[(summary.method == reference) & (summary.source == "analytic")]
    if references.empty:
        raise MissingData(f"{view}: needs the analytic {reference} baseline "
                          f"(sweep with baselines=[...,{reference}])")
    merged = rows.merge(references[["cell_id", "t", "mse"]], on=["cell_id", "t"],
                        suffixes=("", "_reference"))
    if merged.empty:
        raise MissingData(f"{view}: no cell has both Algorithm 1 and the analytic {reference}")
    for column in ("", "_low", "_high"):
        merged[f"ratio{column}"] = merged[f"mse{column}"] / merged.mse_reference
    grid = curves(derived(merged, rows, "ratio"), y="ratio", series=("colme",), baselines=(),
                  aggregate=aggregate, ylabel=f"MSE / MSE of the {reference} (analytic)",
                  title=f"Algorithm 1's MSE over the analytic {reference}'s, against t",
                  note=f"Each curve is divided by the analytic {reference} of its own cell; "
                       "the horizontal line marks 1.")
    for ax in grid.axes.flat:
        ax.axhline(1.0, color="0.3", lw=0.8)
    return grid


VIEWS: dict[str, Callable[[pd.DataFrame], sns.FacetGrid]] = {
    "privacy_utility": privacy_utility,
    "time_to_target": time_to_target,
    "class_errors": class_errors,
    "ratio_to_ideal": ratio,
    "ratio_to_oracle": functools.partial(ratio, reference="oracle"),
}
