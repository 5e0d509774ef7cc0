"""Differentially private distributed inference (Papachristou & Rahimian).

Agents on a graph hold private likelihoods over a finite set of states Θ and exchange
Laplace-noised log-beliefs to find the MLE set (Algs 1, 2 and 4), test a hypothesis
(Prop. 4.6, Sec. 10.2) or learn online (Algs 3 and 5); Sec. 2's toy (randomized response
and Laplace on binary signals), Rizk et al.'s first-order method (Sec. 14.4) and the
pooled, non-private baseline are methods of the family too. :mod:`~sweep.inference.config`
lists the options, :mod:`~sweep.inference.family` the rows.

Errata and readings. Where the paper is wrong or silent, this is what the family does (each
is also documented where it is applied; the tests measure the consequences):

1. Sec. 12's Δ = 2 B_θ B_x does not bound the change of the partial likelihood (3) when
   one patient changes: the patient's own risk-set term moves by about log N and every
   earlier event's by up to e^{2B_θB_x}/|R(j)| (:mod:`~sweep.inference.survival`; 8.6 on
   ACTG 175 against 2). ``sensitivity=printed`` (default, for fidelity) keeps 2 B_θ B_x;
   ``sensitivity=signal`` uses a bound that holds and is attained
   (:func:`~sweep.inference.survival.risk_set_sensitivity`, with the covariate's range 1
   for ACTG's 0/1 treatment indicator).
2. Eq. (7) multiplies the per-signal sensitivity g_i by n_i, which protects all of an
   agent's signals at once: ``printed`` keeps it; ``signal`` protects one signal (g_i).
   Online, a round's count is random and unbounded and each signal enters one round, so
   Alg. 3 uses g_i under either reading.
3. Gaussian signals have an unbounded sensitivity: they are clipped to [−B_x, B_x]
   (``model.bound_x``, default 3σ), g(θ) = ((B_x + |θ|)² − max(0, |θ| − B_x)²)/(2σ²).
4. Lemma 9.1 is applied to |Θ*| (|Θ̄|) i.i.d. draws where |Θ*| + 1 (|Θ̄| + 1) are compared:
   an MLE state wins a round against the |Θ̄| others with probability at least
   1/(|Θ̄| + 1), not 1/|Θ̄|. With |Θ*| = 1, the printed p₁ = 1 − 1/|Θ*| of Thm 4.3 is 0 and
   Θ̂^{thres,1} = {N >= 0} is every state. ``counting=printed`` (default) keeps it;
   ``counting=corrected`` uses 1 − 1/(|Θ*| + 1) and 1/(|Θ̄| + 1). Thm 4.5's q₁, q₂, which
   enter T, are the corrected values under either reading (the printed q₁ = 0 would ask
   for T = ∞).
5. Thm 4.1's GM step P[ν^GM(θ̄) > 0] = P[∩_k ν_k(θ̄) > 0] does not hold for the normalized
   geometric mean (13): as T → ∞ it keeps the states of largest K-round average Z_k, so a
   non-MLE state is returned whenever the average noise beats the likelihood gap, and the
   noise's scale grows with K. Kept as printed; the tests measure the violation.
6. K and T depend on the data (|Θ*|, l_{n,Θ}, Γ_{n,Θ}): for the survival models they are
   computed from the data; for synthetic models from the expected log-likelihoods, so
   that every replicate runs the same K and T. ``round_rule=agnostic`` takes the remarks'
   K that hold for any MLE set (|Θ| log(|Θ|/min{α, 1 − β}) and its Thm 4.3 analogue).
7. The online drift: the paper writes D_KL(ℓ(·|θ̄) | ℓ(·|θ°)); under θ° the log-belief
   ratio drifts by −D_KL(ℓ(·|θ°) ‖ ℓ(·|θ̄)), which enters l_{n,Θ} of Thm 4.7.
8. Eq. (1) is P[Σ y > τ_RR], while the text says "reject whenever Σ y >= τ_RR" (size
   above α): the family follows eq. (1). Eq. (2)'s ε* (with its "<=") is the crossing of
   the "≥" rule; the figures draw both it and the crossing of eq. (1)'s power.
9. Prop. 4.6: the GM runs at level α/2 with ϱ^GM = 1 (the proof's), on the states
   {Θ̃₀, Θ̃}; the p-value of S is min(1, 2 P₀[stat >= S + 1]) (χ²_n by Wilks for the
   composite test, as printed even for a one-sided space); the composite parameter space
   is [min Θ, max Θ] with the null states[0].
10. Rizk et al. (Sec. 14.4): T is the GM's theorem T, θ_{i,0} = 0, the score is clipped to
    [−2B_θB_x, 2B_θB_x] and the noise is Lap(2B_xB_θTη/ε) as printed (a change of the
    clipped score of up to 4B_θB_x per step: the tests measure the loss); the output belief
    is the point mass on the state nearest θ_{i,T}.
11. Best treatment (Sec. 5, "propagate the generalized likelihood ratios over each of the
    treatments"): ``model=treatments`` scores arm a by max_{−B_θ <= θ <= 0} log ℓ(θ) −
    log ℓ(0) on a centre's patients of ZDV and arm a; its sensitivity is 2Δ (both terms
    move).
12. Cox online learning: each centre's patients arrive in a random order, split evenly
    over T + 1 rounds (Sec. 14.1), T = 20 unless given (Thm 4.7 needs a rate).
13. The centralized baseline pools the patients in one partial likelihood; the
    distributed Λ of eq. (5) sums the centres' (a likelihood stratified by centre). Θ* is
    eq. (5)'s.
14. Ties: eq. (3) (Breslow) by default; ``model.ties=efron`` is lifelines' likelihood.
15. The authors' notebook (an extra factor 2 in the noise, its own K, jitter on the
    plotted TVD, TVD against the non-DP run) is not followed; both TVDs are reported.
    Its readings of what the paper leaves open are options, the paper's reading the
    default: Rizk et al.'s start and clipping (``rizk_start=uniform``,
    ``rizk_clip=l1``), ZDV as a fourth state of Fig. 5 (``model.states=[0,1,2,3]`` with
    ``model=treatments``), online arrivals by 10-day period (``arrival_days=10``).
"""

from .config import InferenceConfig

__all__ = ["InferenceConfig"]
