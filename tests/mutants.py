"""Plant plausible privacy bugs in the production code, one at a time, and check that the
privacy tests catch each (issue 36); and bugs in the declared verdict rules, which their
tests must catch.

    python -m tests.mutants            # every mutant; prints killed K/N
    python -m tests.mutants --list     # the mutants, without running them
    python -m tests.mutants --only decentralized-exact-mean-test

The project is copied once to a scratch folder; each mutant edits one line of one file
there, clears numba's on-disk caches (a cached kernel does not notice a change in a
function of another file that it inlines), runs its family's privacy tests (stopping at
the first failure, so the kernels they need compile again), and restores the file. A
mutant is *killed* when a test fails; one whose edit no longer applies, or whose tests
cannot even be collected, is an error, not a kill.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Each family's privacy tests: the audits of the declared noise (:mod:`tests.audit`) and
#: the black-box checks of what the code draws and sends (:mod:`tests.black_box`).
PRIVACY_TESTS = {
    "colme": ("tests/test_colme_privacy.py", "tests/test_privacy_audit.py"),
    "network": ("tests/test_network_privacy.py", "tests/test_privacy_audit.py"),
    "continual": ("tests/test_continual_privacy.py",),
    "inference": ("tests/test_inference_privacy.py",),
    "decentralized": ("tests/test_decentralized_privacy.py",),
}


#: The tests of the declared verdict rules, which their mutants ("verdicts") must fail, of
#: the shared noise kinds' closed forms and draws ("components"), of the inference
#: theorems' K and T ("theorems"), and of C-ColME's work savers, its dropped entries and
#: kept self weights, which must change no value ("work-savers"), and of what a results
#: store knows of its directory after a commit ("store").
CHECK_TESTS = {"verdicts": ("tests/test_claims.py", "tests/test_stability.py",
                            "tests/test_extend.py"),
               "components": ("tests/test_staircase.py", "tests/test_components.py"),
               "theorems": ("tests/test_inference.py",),
               "work-savers": ("tests/test_decentralized.py",),
               "store": ("tests/test_plan.py", "tests/test_store.py")}
TESTS = {**PRIVACY_TESTS, **CHECK_TESTS}


@dataclass(frozen=True)
class Mutant:
    """A bug: in ``path``, the one occurrence of ``old`` becomes ``new``."""

    name: str
    family: str
    what: str
    path: str
    old: str
    new: str


MUTANTS = (
    Mutant("colme-half-noise", "colme", "every p-sum noise drawn at half its scale",
           "sweep/colme/kernel.py",
           "fresh = draw_std(rng, kind, sigma_dp, constants.stairs)",
           "fresh = draw_std(rng, kind, sigma_dp / 2.0, constants.stairs)"),
    Mutant("colme-pm1-drops-old-noise", "colme",
           "PM-I releases only the newest p-sum's noise (earlier p-sums' data in the clear)",
           "sweep/colme/statistic.py",
           "noise = pair[a, b, NOISE] + query.noise",
           "noise = query.noise"),
    Mutant("colme-pm2-split-lost", "colme",
           "PM-II's budget not divided by ⌊log2 t_max⌋ + 1",
           "sweep/colme/config.py",
           "parts *= self.t_max.bit_length()  # ⌊log2 t_max⌋ + 1",
           "parts *= 1"),
    Mutant("colme-lemma1-constant", "colme",
           "Lemma 1 with sensitivity L instead of 2L (σ² = 2L² ln(1.25/δ)/ε²)",
           "sweep/components/calibration.py",
           "return math.sqrt(8.0 * bound**2 * math.log(1.25 / delta)) / epsilon",
           "return math.sqrt(2.0 * bound**2 * math.log(1.25 / delta)) / epsilon"),
    Mutant("colme-lemma2-constant", "colme",
           "Lemma 2's scale from σ_DP² = 2L²/ε² (sensitivity L instead of 2L)",
           "sweep/components/calibration.py",
           "epsilon, math.sqrt(8.0) * bound)",
           "epsilon, math.sqrt(2.0) * bound)"),
    Mutant("colme-calibrated-to-sigma", "colme",
           "the noise calibrated to the data's σ instead of its bound L = σ√3",
           "sweep/colme/privacy.py",
           "return mean_release_std(config.noise, data_bound(config.distribution, config.sigma),",
           "return mean_release_std(config.noise, config.sigma,"),
    Mutant("colme-rrr-on-exact-data", "colme",
           "rRR chooses whom to ask by testing the peer's exact mean, not its release",
           "sweep/colme/kernel.py",
           "Peer(labels[a] == labels[b], chi[a, b], (mean_a - pair[a, b, T]) ** 2,\n"
           "                             pair[a, b, VAR]",
           "Peer(labels[a] == labels[b], chi[a, b], (mean_a - data_sum[b] / prev) ** 2,\n"
           "                             pair[a, b, VAR]"),
    Mutant("colme-half-variance-noise", "colme",
           "Sch-Var-1's partial sample variances noised at half Lemma 3's scale",
           "sweep/colme/kernel.py",
           "fresh_variance = draw_std(rng, kind, constants.sigma_variance,",
           "fresh_variance = draw_std(rng, kind, constants.sigma_variance / 2.0,"),
    Mutant("colme-staircase-sensitivity", "colme",
           "the staircase calibrated to sensitivity L instead of 2L",
           "sweep/components/calibration.py",
           "return sensitivity * math.sqrt(staircase_variance(epsilon))",
           "return sensitivity / 2.0 * math.sqrt(staircase_variance(epsilon))"),
    Mutant("continual-staircase-budget", "continual",
           "Alg. 2's staircase shaped at the whole ε₀, not a p-sum's ε₀/depth",
           "sweep/continual/parameters.py",
           "depth(T), epsilon / depth(T))",
           "depth(T), epsilon)"),
    Mutant("staircase-gamma-as-printed", "components",
           "γ* by Theorem 7 as printed, which cancels catastrophically at small ε",
           "sweep/components/staircase.py",
           "    return ((b * (1.0 + b) / 2.0) ** (1 / 3) - b) / -math.expm1(-epsilon)",
           "    return -b / (1.0 - b) + (b - 2 * b**2 + 2 * b**4 - b**5) ** (1 / 3) / (\n"
           "        2 ** (1 / 3) * (1.0 - b) ** 2)"),
    Mutant("normals-wedge-accepted", "components",
           "the ziggurat's normals keep a wedge draw without testing it under the density",
           "sweep/components/normals.py",
           "< np.exp(-0.5 * np.float64(z) * np.float64(z))):",
           "< np.exp(-0.5 * np.float64(z) * np.float64(z)) + 1.0):"),
    Mutant("normals-tail-unsigned", "components",
           "the ziggurat's tail draws are all positive",
           "sweep/components/normals.py",
           "z = (_R + tail) * _SIGN[(magnitude >> np.uint32(8)) & np.uint32(1)]",
           "z = _R + tail"),
    Mutant("normals-shifted-then-scaled", "components",
           "samples drawn as F((z + μ) σ), not F(σ z) + μ",
           "sweep/components/normals.py",
           "out[s, a] = z * scale + shift[a]",
           "out[s, a] = (z + shift[a]) * scale"),
    Mutant("staircase-steps-swapped", "colme",
           "the staircase's draws put the low step's probability on the high step",
           "sweep/components/noise.py",
           "return sign * stair_magnitude(g, u, rng.random() < low, gamma)",
           "return sign * stair_magnitude(g, u, rng.random() >= low, gamma)"),
    Mutant("colme-variance-on-exact-data", "colme",
           "a weighs and tests b with b's exact sample variance, not its release "
           "(Sch-Var-1) or the estimate from its releases (Sch-Var-2)",
           "sweep/colme/kernel.py",
           "sigma2_b = pair[a, b, ESTIMATE]",
           "sigma2_b = t * own_variance(data_sum[b], square_sum[b], t, sigma2, variance)"),
    Mutant("network-half-noise", "network", "every round's noise drawn at half its scale",
           "sweep/network/family.py",
           "for rng in noise_rngs]) * scale",
           "for rng in noise_rngs]) * scale / 2"),
    Mutant("network-gaussian-for-laplace", "network",
           "unit Gaussian draws where Laplace ones are declared (variance 1 for 2)",
           "sweep/components/noise.py",
           "return rng.laplace(0.0, 1.0, size)",
           "return rng.standard_normal(size)"),
    Mutant("network-dp-without-neighbours", "network",
           "Network DP's noise calibrated to the signal alone (a_i dropped)",
           "sweep/network/family.py",
           "network_part = dynamics.neighbour_weight(t) * neighbour(t)",
           "network_part = 0.0 * neighbour(t)"),
    Mutant("network-smooth-constant", "network",
           "eq. (9)'s smooth bound halved: S*(s) = 1/(2eβs)",
           "sweep/components/calibration.py",
           "return 1.0 / (math.e * beta)",
           "return 1.0 / (2.0 * math.e * beta)"),
    Mutant("network-noise-not-carried", "network",
           "the consensus averages the noiseless estimates but not their noise",
           "sweep/network/algorithms.py",
           "error = q * (a @ error) + p * error",
           "error = q * error + p * error"),
    Mutant("network-failing-links-base-weights", "network",
           "on failing links (App. C.1), Network DP's noise calibrated to the base graph's "
           "a_i, not the round's a_i(t)",
           "sweep/network/family.py",
           "matrix, neighbour = rounds.weights, rounds.neighbour",
           "matrix = rounds.weights"),
    Mutant("network-alg4-neighbour-weight", "network",
           "Alg. 4 run for Network DP pays a_i, not (t − 1)·a_i (its neighbours' weight "
           "(t − 1)/t over the noise's 1/t)",
           "sweep/network/algorithms.py",
           'return float(t - 1) if self.method == "ol_alg4" else 1.0',
           "return 1.0"),
    Mutant("network-sent-from-exact-signal", "network",
           "each message formed from the exact signal's (and, under Network DP, the "
           "neighbours') part plus the noise, not from the release: equal to rounding, its "
           "last bits carry the private inputs",
           "sweep/network/algorithms.py",
           "self.sent[t] = release if own is None else own + release",
           "self.sent[t] = noiseless + noise if own is None else own + (noiseless + noise)"),
    Mutant("continual-tree-half-noise", "continual",
           "the running sum's binary mechanism (Alg. 2) draws its p-sum noise at half η",
           "sweep/continual/kernel.py",
           "push(noisy[0], t, draw_scale(noise, kind, eta[0], stairs[0]))",
           "push(noisy[0], t, draw_scale(noise, kind, eta[0] / 2, stairs[0]))"),
    Mutant("continual-naive-half-noise", "continual",
           "the naive mechanism's fresh noise per read at half its scale",
           "sweep/continual/kernel.py",
           "released = running + (draw_scale(noise, kind, eta[0], stairs[0])",
           "released = running + (draw_scale(noise, kind, eta[0] / 2, stairs[0])"),
    Mutant("continual-element-half-noise", "continual",
           "the released elements' mechanisms (Algs 3–6) draw at half η",
           "sweep/continual/kernel.py",
           "draw_scale(noise, parameters.kind, eta, parameters.stairs[j]) if eta > 0",
           "draw_scale(noise, parameters.kind, eta / 2, parameters.stairs[j]) if eta > 0"),
    Mutant("continual-alg5-budget-split", "continual",
           "Alg. 5's mechanisms each get the whole ε instead of ε/(L + 1) (eq. (7))",
           "sweep/continual/parameters.py",
           "/ (epsilon / levels) for p in power])",
           "/ epsilon for p in power])"),
    Mutant("continual-alg2-depth", "continual",
           "Alg. 2's η without the tree's depth (a sample is in every level's p-sum)",
           "sweep/continual/parameters.py",
           'single(kernel.STREAM, 0.0 if method == "non_private" else m * depth(T) / epsilon,',
           'single(kernel.STREAM, 0.0 if method == "non_private" else m / epsilon,'),
    Mutant("continual-no-projection", "continual",
           "the elements released without their projection (the clipping bound the "
           "calibration assumes)",
           "sweep/continual/kernel.py",
           "projected = min(max(value, centre - half), centre + half)",
           "projected = value"),
    Mutant("continual-median-epsilon", "continual",
           "PrivateMedian's weights exp(−ε′c/2) instead of exp(−ε′c/4) (score sensitivity "
           "2 forgotten)",
           "sweep/continual/kernel.py",
           "weights[b] = math.exp(-epsilon / 4.0 * (costs[b] - lowest))",
           "weights[b] = math.exp(-epsilon / 2.0 * (costs[b] - lowest))"),
    Mutant("continual-estimate-from-exact-p-sums", "continual",
           "Algs 3–6 read their estimate off the exact p-sums (a release of exact data)",
           "sweep/continual/kernel.py",
           "released += set_bits_sum(noisy[j], releases[j])",
           "released += set_bits_sum(exact[j], releases[j])"),
    Mutant("continual-running-sum-exact-fallback", "continual",
           "the running sum's estimate (naive, Alg. 2) falls back to the exact running mean "
           "when the noisy one leaves [0, 1] (a decision on exact data)",
           "sweep/continual/kernel.py",
           "released / counters[0] if counters[0]",
           "(released if 0.0 <= released <= counters[0] else running) / counters[0] "
           "if counters[0]"),
    Mutant("inference-mle-half-noise", "inference",
           "the MLE path (Algs 1, 2) adds half of the noise it draws",
           "sweep/inference/simulate.py",
           "noisy = loglik[:, None] + noise  # (R, K, n, |Θ|)",
           "noisy = loglik[:, None] + noise / 2  # (R, K, n, |Θ|)"),
    Mutant("inference-draw-half-scale", "inference",
           "every path's noise (the MLE rounds, the test, online learning, Rizk et al.) "
           "drawn at half its scale, in the one draw function",
           "sweep/inference/simulate.py",
           "return cell.scale * draw_unit(rng, kind_code(cell.config.noise), shape, cell.budget)",
           "return cell.scale / 2 * draw_unit(rng, kind_code(cell.config.noise), shape, "
           "cell.budget)"),
    Mutant("inference-staircase-drawn-as-laplace", "inference",
           "noise=staircase draws Laplace noise of the same scale (the option ignored)",
           "sweep/inference/simulate.py",
           "return cell.scale * draw_unit(rng, kind_code(cell.config.noise), shape, cell.budget)",
           "return cell.scale * draw_unit(rng, kind_code(\"laplace\"), shape, cell.budget)"),
    Mutant("inference-staircase-shape-at-twice-the-budget", "inference",
           "the staircase drawn with the shape of twice each draw's budget ε' (the scale "
           "b kept)",
           "sweep/inference/simulate.py",
           "return cell.scale * draw_unit(rng, kind_code(cell.config.noise), shape, cell.budget)",
           "return cell.scale * draw_unit(rng, kind_code(cell.config.noise), shape, "
           "2 * cell.budget)"),
    Mutant("inference-test-half-noise", "inference",
           "the distributed test's releases carry half their noise",
           "sweep/inference/simulate.py",
           "initial = (loglik[:, None] + noise).transpose(2, 0, 1, 3)",
           "initial = (loglik[:, None] + noise / 2).transpose(2, 0, 1, 3)"),
    Mutant("inference-online-half-noise", "inference",
           "online learning (Alg. 3) draws its noise at half its scale",
           "sweep/inference/simulate.py",
           "k = online(matrix, signals, draw_noise(cell, noise, signals.shape), first,",
           "k = online(matrix, signals, draw_noise(cell, noise, signals.shape) / 2, first,"),
    Mutant("inference-staircase-iterations-from-laplace", "theorems",
           "the theorems' T under the staircase computed from Laplace's standard deviation "
           "√2 b",
           "sweep/inference/simulate.py",
           "return scale * math.sqrt(unit_noise_variance(kind, budget))",
           "return scale * math.sqrt(2.0)"),
    Mutant("inference-rizk-half-noise", "inference",
           "Rizk et al.'s iterates carry half of the noise drawn for them",
           "sweep/inference/simulate.py",
           "+ noise[:, t - 1].T)",
           "+ noise[:, t - 1].T / 2)"),
    Mutant("inference-rr-half-flips", "inference",
           "randomized response flips each signal half as often as p_ε = 1/(1 + e^ε)",
           "sweep/inference/simulate.py",
           "shared = signals ^ (np.random.default_rng(seed).random(n) < flip)",
           "shared = signals ^ (np.random.default_rng(seed).random(n) < flip / 2)"),
    Mutant("inference-gm-on-exact-data", "inference",
           "the GM belief computed from the exact log-likelihoods (a decision on exact data)",
           "sweep/inference/simulate.py",
           "belief = beliefs(private.mean(axis=2), t)",
           "belief = beliefs(plain, t)"),
    Mutant("inference-budget-per-state", "inference",
           "the noise scale without |Θ| (eq. (7)'s budget ε/|Θ| per state forgotten)",
           "sweep/inference/simulate.py",
           "return rounds * size * cell.sensitivity / config.epsilon",
           "return rounds * cell.sensitivity / config.epsilon"),
    Mutant("inference-test-on-exact-data", "inference",
           "the test's statistic and decision taken on the agents' mean exact "
           "log-likelihoods, not on the exchanged noisy ones",
           "sweep/inference/simulate.py",
           "statistic, p_value = test_statistics(cell, scaled)",
           "statistic, p_value = test_statistics(\n"
           "        cell, np.broadcast_to(loglik.mean(axis=1)[None, :, None], scaled.shape))"),
    Mutant("inference-online-update-from-exact", "inference",
           "online learning (Alg. 3) mixes the neighbours' non-private log-beliefs φ (the "
           "exact signals) into ψ",
           "sweep/inference/beliefs.py",
           "psi[:] = matrix @ psi + own[offset + row] + drawn[row]",
           "psi[:] = matrix @ phi + own[offset + row] + drawn[row]"),
    Mutant("inference-rizk-belief-from-noiseless", "inference",
           "Rizk et al.'s belief read off the noiseless iterate (the exact data's run)",
           "sweep/inference/simulate.py",
           "nearest = np.abs(private[..., None] - cell.states).argmin(axis=-1)",
           "nearest = np.abs(plain[..., None] - cell.states).argmin(axis=-1)"),
    Mutant("inference-toy-half-noise", "inference",
           "Sec. 2's Laplace toy draws its agents' noise at half the scale Δ/ε",
           "sweep/inference/toy.py",
           "noise = b * (rng.standard_gamma(n, size) - rng.standard_gamma(n, size))",
           "noise = b / 2 * (rng.standard_gamma(n, size) - rng.standard_gamma(n, size))"),
    Mutant("decentralized-half-noise", "decentralized",
           "the release noise drawn at half its scale",
           "sweep/decentralized/simulate.py",
           "fresh = self.noise.laplace(0.0, self.sigma_dp / np.sqrt(2.0), shape)",
           "fresh = self.noise.laplace(0.0, self.sigma_dp / np.sqrt(2.0) / 2, shape)"),
    Mutant("decentralized-gaussian-as-laplace-scale", "decentralized",
           "Gaussian noise drawn with σ/√2 (the Laplace conversion applied to it)",
           "sweep/decentralized/simulate.py",
           "fresh *= self.sigma_dp\n",
           "fresh *= self.sigma_dp / np.sqrt(2.0)\n"),
    Mutant("decentralized-exact-mean-test", "decentralized",
           "C-ColME's neighbour test on the agent's exact mean instead of its release",
           "sweep/decentralized/kernel.py",
           "keeps = tested & (abs(xra - node_prv[b + release_at])",
           "keeps = tested & (abs(xa - node_prv[b + release_at])"),
    Mutant("decentralized-exact-mean-belief", "decentralized",
           "B-ColME sends the agent's exact mean at depth 0 instead of its release",
           "sweep/decentralized/kernel.py",
           "            sent[u, 0] = xra\n",
           "            sent[u, 0] = x[a]\n"),
    Mutant("decentralized-no-pm2-split", "decentralized",
           "PM-II's p-sums each get the whole budget (the split by ⌊log2 t_max⌋ + 1 lost)",
           "sweep/decentralized/config.py",
           'parts = self.t_max.bit_length() if privacy.mechanism == "pm2" and '
           'privacy.pm2_split else 1',
           "parts = 1"),
    # The declared verdict rules (analysis.claims, analysis.stability): a rule that decides
    # on a point or a wrong distribution, or a tally or comparison that hides a case.
    Mutant("verdicts-interval-meets", "verdicts",
           "an approximate value agrees when its interval merely meets the band (the rule "
           "before equivalence: a wide interval agrees)",
           "analysis/claims.py",
           "inside = 2 * max(_t_sf(_z(estimate - lower, se_low), df),",
           "inside = 2 * min(_t_sf(_z(estimate - lower, se_low), df),"),
    Mutant("verdicts-normal-not-t", "verdicts",
           "an ordering read at the normal threshold whatever its degrees of freedom",
           "analysis/claims.py",
           "return float(norm.sf(x) if math.isinf(df) else t.sf(x, df))",
           "return float(norm.sf(x))"),
    Mutant("verdicts-holm-not-step-down", "verdicts",
           "Holm's adjusted p-values without the step-down's running maximum",
           "analysis/claims.py",
           "stepped = np.maximum.accumulate((p.size - np.arange(p.size)) * p[order])",
           "stepped = (p.size - np.arange(p.size)) * p[order]"),
    Mutant("verdicts-bound-two-sided", "verdicts",
           "a worst-case rate judged two-sided: a faster rate contradicts the bound",
           "analysis/claims.py",
           "return (-math.inf if self.bound else self.theory - half), self.theory + half",
           "return self.theory - half, self.theory + half"),
    Mutant("verdicts-statement-first-case", "verdicts",
           "a statement's verdict read from its first case only",
           "analysis/claims.py",
           "    verdicts = list(verdicts)\n    if Verdict.DISAGREES in verdicts:",
           "    verdicts = list(verdicts)[:1]\n    if Verdict.DISAGREES in verdicts:"),
    Mutant("verdicts-stability-misses-flips", "verdicts",
           "the stability command never reports a flip between agrees and disagrees",
           "analysis/stability.py",
           "return set(self.verdicts) == DECIDED",
           "return False"),
    Mutant("verdicts-runs-linear-in-the-factor", "verdicts",
           "a row's runs planned as f times the stored ones, not f² (SE ∝ 1/√runs)",
           "analysis/needs.py",
           "return None if shrink is None else max(1.0, shrink) ** 2",
           "return None if shrink is None else max(1.0, shrink)"),
    Mutant("verdicts-planned-at-the-raw-level", "verdicts",
           "a row planned at 5% whatever its multiplicity adjustment",
           "analysis/claims.py",
           "level = ALPHA * min(1.0, test.p / self.adjusted.p)",
           "level = ALPHA"),
    Mutant("verdicts-interval-shrink-one-side", "verdicts",
           "an estimate inside the band planned on its nearer side only",
           "analysis/claims.py",
           "return z * max(se_low / (estimate - lower), se_high / (upper - estimate))",
           "return z * min(se_low / (estimate - lower), se_high / (upper - estimate))"),
    # C-ColME's dead entries (sweep.decentralized.simulate.Run._drop_dead_entries).
    Mutant("dropped-entries-lost-too", "work-savers",
           "the entries excluded to the same class dropped too (the oracle still reads them)",
           "sweep/decentralized/simulate.py",
           "keep = (live.kept | live.same).view(np.bool_)",
           "keep = live.kept.view(np.bool_)"),
    Mutant("dropped-entries-flags-lost", "work-savers",
           "a dropped entry's kept flag left as it was before it was excluded",
           "sweep/decentralized/simulate.py",
           "            self._kept[:] = 0  # a dropped entry was excluded\n",
           ""),
    Mutant("kept-weights-stale", "work-savers",
           "the last step's self weight kept when only a kept neighbour's count changed",
           "sweep/decentralized/kernel.py",
           "            if it == 1 or moved or reset:\n",
           "            if it == 1 or moved:\n"),
    Mutant("kept-weights-moved", "work-savers",
           "the consensus sum with the last step's weights when the agent's kept set changed",
           "sweep/decentralized/kernel.py",
           "            if it == 1 or moved or reset:\n",
           "            if it == 1 or reset:\n"),
    # C-ColME's weight bounds 1/(1 + |C|) in the records (sweep.decentralized.kernel).
    Mutant("weight-bound-larger", "work-savers",
           "a kept neighbour's weight from the larger of the two bounds (the smaller count)",
           "sweep/decentralized/kernel.py",
           "term = min(bound_before, abs(bound))",
           "term = max(bound_before, abs(bound))"),
    Mutant("weight-bound-unsigned", "work-savers",
           "a changed kept set not signed in the agent's record (its neighbours keep their "
           "weights)",
           "sweep/decentralized/kernel.py",
           "node[cur, a, C_WEIGHT] = -recip[count] if moved else recip[count]",
           "node[cur, a, C_WEIGHT] = recip[count]"),
    # A commit registers the files it writes and lists the directory for the others'
    # (sweep.store.ResultsStore._refresh).
    Mutant("store-written-unknown", "store",
           "a commit does not register the files it wrote (the next one reads their footers)",
           "sweep/store.py",
           "        for item in staged:  # known from their writing: no footer to read again\n"
           "            self._add(",
           "        for item in ():\n"
           "            self._add("),
    Mutant("store-written-uncounted", "store",
           "a commit registers its files with no replicates held of their cells",
           "sweep/store.py",
           "return _Staged(temporary, final, _counts(records))",
           "return _Staged(temporary, final, dict.fromkeys(records, 0))"),
    Mutant("store-gone-kept", "store",
           "a refresh keeps the files another sweep removed",
           "sweep/store.py",
           "self._forget([path for name, path in self.known.items() if name not in current])",
           "self._forget([])"),
    Mutant("store-rewritten-unseen", "store",
           "a commit misses a file another sweep rewrote under its name (an extension)",
           "sweep/store.py",
           "changed = [path for path in touched if _stamp(path) != self.stamps.get(path)]",
           "changed = []"),
    Mutant("store-forgotten-known", "store",
           "a forgotten file stays known by its name",
           "sweep/store.py",
           "            self.known.pop(self._name(path), None)\n",
           ""),
)


def _copy_project(scratch: Path) -> None:
    """The project's files as the working tree has them, without caches or results."""
    def ignore(folder: str, names: list[str]) -> set[str]:
        skip = {".git", ".venv", "results", "figures", ".pytest_cache", "__pycache__",
                "paper", "outputs", "multirun"}
        return {n for n in names if n in skip or n.endswith(".egg-info")}

    shutil.copytree(ROOT, scratch, ignore=ignore, symlinks=True, dirs_exist_ok=True)


def _clear_numba_caches(scratch: Path) -> None:
    """Remove the compiled kernels: numba keys a cached kernel on its own file's time and
    size only, so a kernel compiled with a (mutated or restored) function of another file
    inlined would otherwise outlive the change."""
    for pattern in ("*.nbi", "*.nbc"):
        for cached in scratch.rglob(pattern):
            cached.unlink()


def _run(mutant: Mutant, scratch: Path, timeout: float) -> tuple[str, float, str]:
    target = scratch / mutant.path
    original = target.read_text()
    if original.count(mutant.old) != 1:
        return "error", 0.0, f"the edit does not apply ({original.count(mutant.old)} matches)"
    target.write_text(original.replace(mutant.old, mutant.new))
    _clear_numba_caches(scratch)
    env = os.environ | {"PYTHONPATH": str(scratch), "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
               "-o", "addopts=", *TESTS[mutant.family]]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=scratch, env=env, capture_output=True, text=True,
                              timeout=timeout)
        code, output = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired:
        code, output = -1, "timed out"
    finally:
        target.write_text(original)
    seconds = time.perf_counter() - start
    lines = [line for line in output.splitlines() if line.strip()]
    if code == 1:
        failed = [line for line in lines if line.startswith(("FAILED", "ERROR"))]
        return "killed", seconds, (failed or lines[-1:])[0]
    if code == 0:
        return "survived", seconds, lines[-1] if lines else ""
    return "error", seconds, "\n".join(lines[-5:])


def _check_isolation(scratch: Path) -> None:
    """The tests must import the scratch copy, not the installed project."""
    env = os.environ | {"PYTHONPATH": str(scratch)}
    where = subprocess.run(
        [sys.executable, "-c", "import sweep, tests; print(sweep.__file__, tests.__file__)"],
        cwd=scratch, env=env, capture_output=True, text=True, check=True).stdout
    if any(not Path(p).resolve().is_relative_to(scratch.resolve()) for p in where.split()):
        raise SystemExit(f"the scratch copy is not the one imported: {where.strip()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutants", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run these mutants only")
    parser.add_argument("--timeout", type=float, default=900.0,
                        help="seconds allowed per mutant (default 900)")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.only or m.name in args.only]
    if args.only and len(chosen) != len(args.only):
        names = ", ".join(m.name for m in MUTANTS)
        parser.error(f"--only: unknown mutant; choose among {names}")
    if args.list:
        for m in chosen:
            print(f"{m.name:44} {m.family:14} {m.what}")
        return 0
    killed = 0
    with tempfile.TemporaryDirectory(prefix="mutants-") as folder:
        scratch = Path(folder) / "project"
        _copy_project(scratch)
        _check_isolation(scratch)
        for m in chosen:
            verdict, seconds, detail = _run(m, scratch, args.timeout)
            killed += verdict == "killed"
            print(f"{verdict:8} {m.name:44} {seconds:6.0f} s  {m.what}\n         {detail}",
                  flush=True)
    print(f"killed {killed}/{len(chosen)}")
    return 0 if killed == len(chosen) else 1


if __name__ == "__main__":
    sys.exit(main())
