"""What the analysis reads of the inference family (:mod:`analysis.studies.inference`).

The study draws ACTG 175 as the runs split it (Kaplan–Meier curves and hazard ratios of
one centre, Fig. 4) and states numbers the results do not hold (the centres' likelihood
gap, the spread of their scores between arms): it rebuilds a cell's data from its
options, through these names only.

- :data:`ARMS`: ACTG 175's arms by code (0 is ZDV, the control), as the rows name the
  states of the best-treatment model;
- :class:`InferenceConfig`: a cell's options, validated
  (:meth:`InferenceConfig.from_options`), from which the functions below split the data;
- :func:`cox_centres`: each centre's patients of a Cox model cell (one arm against ZDV),
  resampled and split by ``dataset.split_seed`` as the runs do;
- :func:`treatment_frames`: ACTG 175's rows of each centre of a best-treatment cell;
- :func:`treatment_loglik`: the centres' scores of the arms (log GLR against ZDV), as
  the runs compute them;
- :func:`partial_loglik`: the Cox partial log-likelihood of eq. (3) on a grid of θ;
- :func:`actg175`: the trial's rows as packaged (``arms``, ``days``, ``cens``);
- :func:`rr_size`: the actual size of Sec. 2's randomized-response test (eq. (1));
- :func:`theorem_rounds`: K of Thms 4.1 and 4.3;
- :func:`time_cell`: the time of whole runs of a cell, one thread (Sec. 14.3);
- :func:`prepare`: a cell's calibration (its K, T, noise scale b and each draw's budget
  ε'), and :func:`deviation`, the standard deviation of one of its draws (Thm 4.2's
  V_{n,Θ} is n times it): the theorems' T under Laplace and staircase noise.
"""

from .config import ARMS, InferenceConfig
from .parameters import theorem_rounds
from .simulate import cox_centres, deviation, prepare, treatment_frames, treatment_loglik
from .survival import actg175, partial_loglik
from .timing import time_cell
from .toy import rr_size

__all__ = ["ARMS", "InferenceConfig", "actg175", "cox_centres", "deviation", "partial_loglik",
           "prepare", "rr_size", "theorem_rounds", "time_cell", "treatment_frames",
           "treatment_loglik"]
