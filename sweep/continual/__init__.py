"""Continual mean estimation under user-level DP (George, Ramesh, Singh & Tyagi).

A stream of T Bernoulli(μ) samples from n users, each giving at most m, arrives in some
order (:mod:`~sweep.continual.orders`); a method releases μ̂_t at every t, the whole
sequence user-level ε-DP. The methods (:mod:`~sweep.continual.parameters`,
:mod:`~sweep.continual.kernel`) are the running mean, per-step Laplace noise, and
Algorithms 2–6 of the paper; :mod:`~sweep.continual.bounds` holds their theorems' bounds.

Errata and readings. Where the paper is wrong or silent, this is what the family does
(each is also documented where it is applied). δ is the paper's failure probability, the
option ``failure_probability`` (``delta`` is the DP δ in every family); δ̃, advanced
composition's DP δ, is the option ``delta``.

1. Alg. 1, line 11 adds NoisyPartialSums[index] for every bit; only the bits b_j = 1 may
   contribute (:func:`sweep.components.tree.set_bits_sum`).
2. Algs 4–5, line 8: ``total += M(u_t)`` adds 2^ℓ for an element that carries 2^(ℓ−1)
   samples (1 at ℓ = 0); ``total`` grows by the samples released, or μ̂_t would divide by
   about twice the samples it sums.
3. Levels 0 and 1 hold single samples: they are never projected (Alg. 6 line 22 projects
   every active level, but PrivateMedian gives priors from ℓ = 2 only).
4. Alg. 6: an activated level leaves ``Inactive`` (as printed, lines 8–13 would rerun
   PrivateMedian and push the buffer again at every later step).
5. L is ⌈log2 m⌉ in Algs 5–6 and ⌊log2 m⌋ in the proof of Thm 3.2: option
   ``level_count`` (default ``ceil``, the algorithms'). A count reaches 2^ℓ only for
   ℓ <= ⌊log2 m⌋, so a user's samples beyond 2^⌊log2 m⌋ are never released (the pattern
   has no final flush): kept as printed, and visible as ``samples_used`` < t.
6. The depth of a binary mechanism over N elements, the p-sums each element enters, is
   the integer ⌊log2 N⌋ + 1 = ⌈log2(N + 1)⌉; the paper writes 1 + log N (and log(1 + N)
   in eq. 5) unrounded.
7. k_ℓ, a number of arrays, is an integer: ⌈(32L/ε) ln(3L 2^(ℓ/2)/δ)⌉.
8. m = 1: "log m" inside ln(2n log m/δ) is 0 and Alg. 6 divides by L = 0; both are taken
   as at least 1. With m = 1 only level 0 exists and Alg. 6 has no inactive level.
9. Lemma A.2 as printed, c √(Σ b_i² ln(1/δ)), fails for small δ (one Laplace(b) exceeds
   b ln(1/δ) with probability δ); the proofs use c √(Σ b_i²) ln(1/δ), true with c = 4 for
   δ <= 0.35: ``bound_constant`` (default 4).
10. The proofs of Thms 3.1, 3.2 and 3.4 bound the noise of μ̂_t by η/t, but μ̂_t divides
    by ``total`` >= t/2 (Claim C.1): the bounds use 2η/t, as Alg. 3's proof does.
11. The priors of Algs 3–5 are given, μ̃ = μ + ``prior_offset``, not computed: the
    theorems' "2ε-DP" counts a private prior; here ε is spent on the mechanisms alone.
12. Alg. 3, printed for contiguous arrivals only (it sums x_(t−m+1..t) at t = m, 2m, ...),
    releases a user's block when its m-th sample arrives under any order; μ̂_t = μ̃
    before the first block (lines 3–5).
13. ``naive_laplace`` adds Lap(mT/ε) to each running sum: a user moves the sum by m at
    most, and each of T releases gets ε/T. (The introduction's M_t/(tε) uses the
    data-dependent M_t, which would leak.)
14. PrivateMedian (Alg. 7) takes the users in index order and each user's first samples;
    at ℓ = 2 its single bin (width 2·2^−1 = 1) makes μ̃_2 = 1/2 whatever the data.
15. Eqs. (7) and (9)–(10) at ℓ = 0 are used as printed (2^(ℓ−1) = 1/2): the noise of
    levels 0 and 1 is calibrated to 2Δ_ℓ although their elements move by 1 at most.
16. d dimensions (Sec. 4): each coordinate runs at ε/d, or at the ε₀ for which Dwork,
    Rothblum & Vadhan's Thm III.3 gives (ε, δ̃)-DP exactly (the paper writes
    ε√(d ln(1/δ̃)) up to constants); ``abs_error`` is the largest coordinate's error.
17. Sec. 5's lower bound, 1/√t + √M_t/(tε), is drawn with its constants set to 1.
"""
