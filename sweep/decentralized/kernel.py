"""Compiled steps of C-ColME and B-ColME over CSR adjacency.

Notation (Galante, Neglia & Leonardi, AAAI 2025, as their public C++ code implements it;
see the family's docs). All agents update synchronously from the previous step's
values. At step ``it`` (0-based; the reference's iteration) every agent has
n = it + 1 samples and its running mean x_a; x̂_a is what it releases (x_a itself
without privacy). Double-buffered arrays hold step ``it`` in row ``it & 1`` and the
previous step in the other row.

- Optimistic test: a keeps b iff |x̂_a(it) − x̂_b(it − 1)| − β(n) − β(n − 1) <= 0
  (one radius per step: every agent has n samples). Irrevocable by default.
- C-ColME: w_ab = 1/(1 + max(|C_a(it)|, |C_b(it − 1)|)) on the kept b, w_aa = 1 − Σ w_ab;
  v_a = w_aa y_a + Σ w_ab y_b (previous step's y); y_a = (1 − α) x̂_a + α v_a, α = s/(s + 1),
  s = it − t₀ (see :func:`c_colme_steps` for t₀). The oracle uses the true same-class
  neighbours with static weights and α = it/(it + 1).
- B-ColME: per kept neighbour j and depth k < D, a sum S_a[j][k] and a count c_a[j][k]:
  S[j][0] = x̂_j(it − 1), c = 1; S[j][k] = Σ over j's kept neighbours l ≠ a of
  S_j[l][k − 1] at it − 1 (non-backtracking), computed as j's row total minus j's entry
  for a. Estimate [(it + 1) x_a + Σ_{j,k} (it − k) S[j][k]] / [(it + 1) + Σ (it − k) c[j][k]].

Arithmetic is in the precision ``F`` of the arrays (the reference's float32 by default),
with the reference's operations in its order where it fixes the result: the running
mean, the radius (glibc's ``logf``, which numba calls), the test, C-ColME's weights and
consensus. The estimate's own exact local mean x_a enters only the agent's estimate;
everything it sends is computed from releases (post-processing, see
:mod:`sweep.decentralized.privacy`).

C-ColME's agents of a step run in chunks, on numba's threads when the task may use more
than one core (:func:`compiled_twice`, :mod:`sweep.threads`), with the same values at
any number of threads.
"""

from __future__ import annotations

import math
import types
from typing import NamedTuple

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils
from numba.extending import intrinsic

from ..components.tree import lowest_bit

# Mechanism codes.
NO_MECHANISM, PM1, PM2 = range(3)
#: Not a mechanism: the releases themselves are handed in, in place of the p-sum noises
#: (``fresh`` holds them). The privacy audit couples two runs on neighbouring samples
#: this way (:func:`.simulate.trajectories`, ``released``).
GIVEN = 3
# Fields of the int64 ``counters`` array carried from segment to segment.
WRONG = 0  # kept entries to another class (directed)
LOST = 1  # excluded entries to the same class (directed)
LEARNT = 2  # the reference's graph_learnt: no wrong entry was left at some step (sticky)
ENTERED = 3  # whether t₀ froze at the first learnt step
T0 = 4  # t₀ of the global α reset
CHANGED = 5  # some agent changed its kept set at the previous step
N_COUNTERS = 6


class Segment(NamedTuple):
    """Steps ``it0`` .. ``it1`` − 1 and what they take in: each step's new samples and
    p-sum noises (or the releases themselves, :data:`GIVEN`), (it1 − it0, N) each."""

    it0: int
    it1: int
    samples: np.ndarray
    fresh: np.ndarray


class Flags(NamedTuple):
    """How the steps run: the mechanism's code; C-ColME's global α reset (the
    reference's) or local one; irrevocable exclusions; whether the last step's estimates
    are recorded; whether neighbours' records are prefetched (:data:`PREFETCH_AHEAD`);
    whether C-ColME's agents of a step run on numba's threads (:func:`compiled_twice`;
    B-ColME's run in one: on 2 cores its parallel form, 8 arrays a step, was no faster
    than the serial one at 4·10⁴ and 1.5·10⁵ agents);
    B-ColME's ``depths``, D zeros whose type carries D (each depth compiles to its own
    kernel, its loops over the depths of constant length: unrolled, about 1.5 times
    faster than D read from the arrays' shape), () for C-ColME."""

    mechanism: int
    global_reset: bool
    irrevocable: bool
    record: bool
    prefetch: bool
    parallel: bool
    depths: tuple


class Links(NamedTuple):
    """A graph in CSR form and its links' state: row pointers, neighbours, each entry's
    reverse entry (B-ColME; empty for C-ColME), whether its ends share a class, and
    whether it is kept (updated by the tests)."""

    indptr: np.ndarray
    indices: np.ndarray
    reverse: np.ndarray
    same: np.ndarray
    kept: np.ndarray


class Noise(NamedTuple):
    """The mechanisms' state per agent: PM-I's sum of the fresh noises so far, PM-II's
    live p-sum noise of each level (levels, N)."""

    noise_sum: np.ndarray
    levels: np.ndarray


class Tables(NamedTuple):
    """Per-step constants indexed by n (:func:`step_tables`), and C-ColME's reciprocals
    1/(1 + k) of the kept counts (empty for B-ColME)."""

    keep_f: np.ndarray
    new_f: np.ndarray
    beta: np.ndarray
    recip: np.ndarray


class CState(NamedTuple):
    """C-ColME's state: the exact running means (2, N), the agents' records ``node``
    (2, N, :data:`C_FIELDS`), each agent's t₀ (local reset), the ``counters``, the last
    step's estimates and oracle values, and each agent's self weight w_aa at its last
    step (kept while its weights do not change)."""

    x: np.ndarray
    node: np.ndarray
    t0: np.ndarray
    counters: np.ndarray
    estimate: np.ndarray
    oracle: np.ndarray
    self_weights: np.ndarray


class COracle(NamedTuple):
    """C-ColME's oracle: static weights per entry, self weights, and whether an agent has
    a same-class neighbour (:func:`oracle_weights`)."""

    weight: np.ndarray
    self_weight: np.ndarray
    has: np.ndarray


class Messages(NamedTuple):
    """B-ColME's messages, one row per entry: D sums then D counts, the counts in the
    integer view ``counts`` of the same memory."""

    values: np.ndarray
    counts: np.ndarray


class BState(NamedTuple):
    """B-ColME's state: exact running means and releases (2, N), the ``counters``, the
    messages of both step parities (2, entries, 2D), and the last step's estimates and
    oracle values."""

    x: np.ndarray
    release: np.ndarray
    counters: np.ndarray
    messages: Messages
    estimate: np.ndarray
    oracle: np.ndarray


class BOracle(NamedTuple):
    """B-ColME's oracle: message passing on the same-class subgraph (its ``links``, every
    entry used), its messages, and whether it runs at all."""

    links: Links
    messages: Messages
    enabled: bool


class Step(NamedTuple):
    """One step of B-ColME's message passing: its index, whether its estimates are
    recorded, whether the tests run first, and the radii β(n) and β(n − 1)."""

    it: int
    last: bool
    test: bool
    beta_new: float
    beta_old: float


class Agents(NamedTuple):
    """The agents' values at a step: their releases and exact means, and where their
    estimates go."""

    release: np.ndarray
    x: np.ndarray
    estimate: np.ndarray


@numba.njit(cache=True)
def step_tables(F, scale: float, failure: float, n_collab: int, noise_radius: np.ndarray,
                keep_f: np.ndarray, new_f: np.ndarray, beta: np.ndarray) -> None:
    """Fill the per-step constants, indexed by n = 0..t_max (samples per agent), in
    precision ``F``: (n − 1)/n and 1/n of the running mean, and the test radius
    β(n) + ρ(n) (β = ∞ for n < 2; ``noise_radius`` ρ, 0 without privacy), β as the
    reference computes it: γ = ``failure``/n_collab (the test's failure probability, the
    reference's δ), ln(√(n + 1)/γ), σ √(((2 (1/n)) (1 + 1/n)) ln)."""
    one = F(1.0)
    gamma = F(failure) / F(n_collab)
    for n in range(len(beta)):
        nf = F(n)
        keep_f[n] = (nf - one) / nf if n > 0 else F(0.0)
        new_f[n] = one / nf if n > 0 else F(0.0)
        if n < 2:
            beta[n] = F(np.inf)
        else:
            ln = np.log(np.sqrt(nf + one) / gamma)
            inv = one / nf
            beta[n] = F(scale) * np.sqrt(F(2.0) * inv * (one + inv) * ln)
            if noise_radius[n] > 0.0:
                beta[n] += F(noise_radius[n])


@numba.njit(cache=True, inline="always")
def _noise(mechanism: int, a: int, n: int, fresh: float, noise_sum: np.ndarray,
           levels: np.ndarray) -> float:
    """N_n of agent a's n-th release, given its fresh p-sum noise: PM-I the sum of all
    fresh noises so far; PM-II the binary mechanism's (levels[i, a] holds the live p-sum
    noise of level i; release n creates the p-sum of its lowest set bit and sums those
    of its set bits, as :mod:`sweep.components.tree` does for one stream)."""
    if mechanism == PM1:
        noise_sum[a] += fresh
        return noise_sum[a]
    levels[lowest_bit(n), a] = fresh
    total = 0.0
    bits = n
    i = 0
    while bits:
        if bits & 1:
            total += levels[i, a]
        bits >>= 1
        i += 1
    return total


@numba.njit(cache=True, inline="always")
def _release(F, mechanism: int, a: int, n: int, xa, fresh: float, noise_sum: np.ndarray,
             levels: np.ndarray):
    """Agent a's n-th release given its exact mean ``xa``: xa itself without a mechanism,
    xa + N_n/n with one (:func:`_noise`), or the handed-in ``fresh`` (:data:`GIVEN`)."""
    if mechanism == NO_MECHANISM:
        return xa
    if mechanism == GIVEN:
        return F(fresh)
    return xa + F(_noise(mechanism, a, n, fresh, noise_sum, levels) / n)


@numba.njit(cache=True)
def _flip(e: int, keep: bool, same: np.ndarray, kept: np.ndarray, counters: np.ndarray
          ) -> None:
    """Record that entry e's test changed its outcome (a rare path: not inlined)."""
    kept[e] = 1 if keep else 0
    if same[e]:
        counters[LOST] += -1 if keep else 1
    else:
        counters[WRONG] += 1 if keep else -1


#: How many entries ahead the kernels ask the memory for a neighbour's record (measured
#: best among 8, 16, 32, 64 for C-ColME at a million agents).
PREFETCH_AHEAD = 64


@intrinsic
def _prefetch(typingctx, array, offset):
    """Ask the memory for the cache line of ``array``'s element at flat ``offset`` (a
    hint, no effect on values: LLVM's ``llvm.prefetch``, read, keep in all caches)."""
    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        byte = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte, i32, i32, i32]),
            "llvm.prefetch")
        builder.call(function, [builder.bitcast(builder.gep(data, [args[1]]), byte),
                                i32(0), i32(3), i32(1)])
        return context.get_dummy_value()
    return numba.types.void(array, offset), codegen


# Hot loops call no function that takes arrays (each such call costs atomic reference
# counts): the test, the release and the consensus are written out in the kernels.

# Fields of C-ColME's per-agent record ``node[step parity, agent, field]``: what the
# neighbours read of an agent's previous step, packed in 16 bytes (float32) so that a
# neighbour costs one cache line. C_WEIGHT holds 1/(1 + |C_a|), the bound agent a puts
# on its consensus weights: w_ab = 1/(1 + max(|C_a|, |C_b|)) is the smaller of the two
# agents' bounds, bit for bit, since 1/(1 + k) rounded never increases in k. It is negated if
# a's kept set changed at that step (the bound is never 0, so its sign is free). A
# neighbour's weight is then a min of two values at hand, not a table read at the larger
# of two counts (a load that waits on the neighbour's).
C_RELEASE, C_Y, C_ORACLE, C_WEIGHT = range(4)
C_FIELDS = 4


#: Agents per chunk of a step's loop over its agents. The agents of a step depend only
#: on the previous step, so any split gives the same values, and the chunks tally only
#: integers (their flipped links, summed exactly) and whether a kept set changed: the
#: results are the same, bit for bit, at any number of threads.
CHUNK_AGENTS = 1 << 10


def compiled_twice(function):
    """``function`` compiled as a serial kernel, and as a parallel one whose
    ``numba.prange`` loops run on numba's threads (as many as ``numba.set_num_threads``
    allows): (serial, parallel). The parallel one compiles a copy of the function under
    its own name, as numba's cache names a kernel's files by its function's name.

    Both are kept: the parallel kernel starts numba's threading layer, and a process that
    has started it (GNU OpenMP's) cannot run it again in a child it forks, as the
    process pool's workers are (:func:`sweep.threads.kernel_threads` decides which runs).
    """
    copy = types.FunctionType(function.__code__, function.__globals__, function.__name__,
                              function.__defaults__, function.__closure__)
    copy.__qualname__ = f"{function.__qualname__}_parallel"
    return (numba.njit(cache=True)(function),
            numba.njit(cache=True, parallel=True)(copy))


class CStep(NamedTuple):
    """Step ``it`` of C-ColME, row ``k`` of its segment's samples and p-sum noises; the
    consensus weight α (global reset) and the oracle's, and whether the agents'
    estimates are recorded."""

    it: int
    k: int
    samples: np.ndarray
    fresh: np.ndarray
    alpha: float
    alpha_oracle: float
    last: bool


@numba.njit(cache=True, nogil=True)
def c_colme_steps(F, segment: Segment, flags: Flags, links: Links, noise: Noise,
                  tables: Tables, state: CState, oracle_state: COracle) -> None:
    """C-ColME and its oracle, the steps ``it0`` .. ``it1`` − 1 of ``segment`` (it0 >= 1).

    ``samples[it − it0, a]`` is a's new sample; ``fresh`` the new p-sum noises (same
    shape; unused without a mechanism). ``x`` holds the exact running means (2, N);
    ``node`` (2, N, :data:`C_FIELDS`) each agent's release, consensus value y, oracle
    value, and its consensus weight bound (:data:`C_WEIGHT`). With ``record``,
    ``estimate`` and ``oracle`` get the agents' estimates at the last step (y and the
    oracle's value, with the agent's exact mean in place of its release). With
    ``prefetch``, the neighbours' records are asked for ahead (:data:`PREFETCH_AHEAD`;
    for graphs whose records are not in cache). With ``parallel``, each step's agents
    run on numba's threads (:data:`CHUNK_AGENTS`).

    t₀ (``global_reset``, the reference's): at step it, if no wrong link was left at some
    earlier step, t₀ freezes at the first such step − 1; otherwise t₀ = it − 1 whenever
    an agent changed its kept set at it − 1. Without it (local reset): agent a's own t₀
    moves to it − 1 when a, or a neighbour it keeps, changed its kept set at it − 1.
    """
    it0, it1, samples, fresh = segment
    counters = state.counters
    one = F(1.0)
    alpha = one
    for it in range(it0, it1):
        if flags.global_reset:
            if counters[LEARNT]:
                if not counters[ENTERED]:
                    counters[T0] = it - 1
                    counters[ENTERED] = 1
            elif counters[CHANGED]:
                counters[T0] = it - 1
            alpha = F(it - counters[T0]) / (one + F(it) - F(counters[T0]))
        step = CStep(it, it - it0, samples, fresh, alpha, F(it) / (one + F(it)),
                     flags.record and it == it1 - 1)
        if flags.parallel:
            _c_colme_agents_parallel(F, step, flags, links, noise, tables, state,
                                     oracle_state)
        else:
            _c_colme_agents(F, step, flags, links, noise, tables, state, oracle_state)


def _c_colme_step_agents(F, step: CStep, flags: Flags, links: Links, noise: Noise,
                         tables: Tables, state: CState, oracle_state: COracle) -> None:
    """Every agent's step ``it`` of C-ColME (:func:`c_colme_steps`), in chunks of
    :data:`CHUNK_AGENTS` (on numba's threads in its parallel form); then the counters:
    the flipped links, whether a kept set changed, and whether no wrong link is left."""
    # Unpacked once: the loops read locals.
    it, k, samples, fresh, alpha, alpha_oracle, last = step
    mechanism, global_reset, irrevocable, _, prefetch, _, _ = flags
    indptr, indices, _, same, kept = links
    noise_sum, levels = noise
    keep_f, new_f, beta, recip = tables
    x, node, t0, counters, estimate, oracle, self_weights = state
    oracle_weight, oracle_self, has_oracle = oracle_state
    zero = F(0.0)
    one = F(1.0)
    n = it + 1
    cur = it & 1
    prv = cur ^ 1
    n_agents = len(indptr) - 1
    n_entries = len(indices)
    private = mechanism != NO_MECHANISM
    keep, new, beta_new, beta_old = keep_f[n], new_f[n], beta[n], beta[n - 1]
    # The previous step's records as flat arrays: a neighbour's field is one offset
    # from one base, with no row stride to multiply by (which the loop kept on the stack).
    node_prv = node[prv].reshape(-1)
    fields = np.uint64(C_FIELDS)
    release_at, y_at = np.uint64(C_RELEASE), np.uint64(C_Y)
    oracle_at, weight_at = np.uint64(C_ORACLE), np.uint64(C_WEIGHT)
    revocable = not irrevocable
    n_chunks = (n_agents + CHUNK_AGENTS - 1) // CHUNK_AGENTS
    # Each chunk's tallies: its flipped links by kind, and whether one of its agents
    # changed its kept set.
    tallies = np.zeros((n_chunks, N_COUNTERS), dtype=np.int64)
    moved_chunks = np.zeros(n_chunks, dtype=np.bool_)
    for c in numba.prange(n_chunks):
        tally = tallies[c]
        chunk_moved = False
        for a in range(c * CHUNK_AGENTS, min(n_agents, (c + 1) * CHUNK_AGENTS)):
            xa = x[prv, a] * keep + samples[k, a] * new
            x[cur, a] = xa
            xra = _release(F, mechanism, a, n, xa, fresh[k, a] if private else 0.0,
                           noise_sum, levels)
            # One pass over a's row: the oracle's sum, the tests, and the consensus sum v
            # with the last step's weights: w_ab = 1/(1 + max(|C_a(it)|, |C_b(it − 1)|)),
            # the self weight first, as the reference sums. They are this step's unless
            # a's kept set changes in the pass (``moved``) or a kept neighbour's count
            # changed at the last step (its weight bound's sign, in ``reset``): then
            # the weights are computed again from the row (below); once learnt, almost
            # no agent does.
            ov = oracle_self[a] * node[prv, a, C_ORACLE]
            own_bound = node[prv, a, C_WEIGHT]
            bound_before = abs(own_bound)
            v = self_weights[a] * node[prv, a, C_Y]
            count = 0
            moved = False
            reset = own_bound < zero
            for e in range(indptr[a], indptr[a + 1]):
                # The record of the neighbour PREFETCH_AHEAD entries on is asked for now:
                # at a million agents the records are not in cache, and the reads would
                # otherwise wait on one another.
                if prefetch and e + PREFETCH_AHEAD < n_entries:
                    _prefetch(node_prv, indices[e + PREFETCH_AHEAD] * C_FIELDS)
                # Free of coin-flip branches (skipping the entries that are neither kept
                # nor the oracle's costs more than reading them): the oracle's weight is 0
                # off its neighbours (adding 0 × y changes no bit), the test's outcome is
                # masked by the kept flag, and only a kept neighbour's term enters v (a
                # branch taken the same way at almost every entry). Unsigned indices:
                # numba adds no test for a negative one.
                u = np.uint64(e)
                b = np.uint64(indices[u]) * fields
                ov += oracle_weight[u] * node_prv[b + oracle_at]
                tested = (kept[u] == 1) | revocable
                keeps = tested & (abs(xra - node_prv[b + release_at]) - beta_new
                                  - beta_old <= zero)
                if keeps != (kept[u] == 1):
                    _flip(e, keeps, same, kept, tally)
                    moved = True
                bound = node_prv[b + weight_at]
                term = min(bound_before, abs(bound)) * node_prv[b + y_at]
                v = v + term if keeps else v
                reset = reset | (keeps & (bound < zero))
                count += keeps
            chunk_moved = chunk_moved or moved
            if it == 1 or moved or reset:
                self_weight = one
                bound_now = recip[count]
                for e in range(indptr[a], indptr[a + 1]):
                    if kept[e]:
                        bound = node_prv[np.uint64(indices[e]) * fields + weight_at]
                        self_weight -= min(bound_now, abs(bound))
                self_weights[a] = self_weight
                v = self_weight * node[prv, a, C_Y]
                for e in range(indptr[a], indptr[a + 1]):
                    if kept[e]:
                        b = np.uint64(indices[e]) * fields
                        v += min(bound_now, abs(node_prv[b + weight_at])) * node_prv[b + y_at]
            alpha_a = alpha
            if not global_reset:
                if reset:
                    t0[a] = it - 1
                alpha_a = F(it - t0[a]) / (one + F(it) - F(t0[a]))
            node[cur, a, C_RELEASE] = xra
            node[cur, a, C_Y] = (one - alpha_a) * xra + alpha_a * v
            node[cur, a, C_WEIGHT] = -recip[count] if moved else recip[count]
            if last:
                estimate[a] = (one - alpha_a) * xa + alpha_a * v
            # The oracle: an agent without same-class neighbours keeps its local mean (in
            # the reference's arithmetic).
            own = ov
            if not has_oracle[a]:
                ov = xra
                own = xa
            node[cur, a, C_ORACLE] = (one - alpha_oracle) * xra + alpha_oracle * ov
            if last:
                oracle[a] = (one - alpha_oracle) * xa + alpha_oracle * own
        moved_chunks[c] = chunk_moved
    _gather(tallies, moved_chunks, counters)


_c_colme_agents, _c_colme_agents_parallel = compiled_twice(_c_colme_step_agents)


@numba.njit(cache=True)
def _gather(tallies: np.ndarray, moved_chunks: np.ndarray, counters: np.ndarray) -> None:
    """The step's counters from its chunks': the flipped links added, whether a kept set
    changed, and whether no wrong link is left."""
    changed = False
    for c in range(len(moved_chunks)):
        counters[WRONG] += tallies[c, WRONG]
        counters[LOST] += tallies[c, LOST]
        changed = changed or moved_chunks[c]
    counters[CHANGED] = changed
    if counters[WRONG] == 0:
        counters[LEARNT] = 1


# B-ColME's messages ``message[parity, e, :]`` for every entry e = (a → j): what a sent j
# at that step, D sums then D counts (the counts in the integer view of the same
# memory). Depth 0 is a's release; depth k >= 1 is the sum of a's depth-(k − 1) row
# entries over its kept neighbours other than j. The message a reads from j is at
# ``reverse[e]``; it is a's new row for j.


@numba.njit(cache=True)
def _belief_step(F, step: Step, flags: Flags, links: Links, sent_messages: Messages,
                 received_messages: Messages, agents: Agents, counters) -> bool:
    """One step of B-ColME's message passing for every agent, over the entries where
    ``use`` (the links' kept flags); with ``test``, the optimistic tests first (``use``
    is then updated). Returns whether a kept set changed; with ``last``, the estimates
    into ``estimate``. ``received`` holds the previous step's messages, ``sent`` gets
    this step's (each (entries, 2D) with its integer view); ``release`` and ``x`` are
    this step's releases and exact means; D = ``len(depths)`` (see :class:`Flags`).
    With ``prefetch``, the messages to read are asked for ahead, as in C-ColME.

    Agent a's row for j (kept) is j's message of the previous step; its totals
    T_a[k] = Σ_j row_j[k] give its estimate [(it + 1) x_a + Σ_k (it − k) T_a[k]] /
    [(it + 1) + Σ_k (it − k) C_a[k]] and its new messages: to j, depth 0 its release,
    depth k its depth-(k − 1) total less its row for j (non-backtracking; zero when
    the count is zero). Excluded rows count as empty (masked, without a branch: a
    message times 1 is itself).
    """
    it, record, test, beta_new, beta_old = step
    _, _, irrevocable, _, prefetch, _, depths = flags
    indptr, indices, reverse, same, use = links
    sent, sent_int = sent_messages
    received, received_int = received_messages
    release, x, estimate = agents
    zero = F(0.0)
    depth = len(depths)
    widest = 0
    for a in range(len(indptr) - 1):
        widest = max(widest, indptr[a + 1] - indptr[a])
    rows = np.zeros((widest, depth), dtype=x.dtype)
    row_counts = np.zeros((widest, depth), dtype=np.int64)
    total = np.zeros(depth, dtype=x.dtype)
    total_count = np.zeros(depth, dtype=np.int64)
    changed = False
    n_entries = len(indices)
    for a in range(len(indptr) - 1):
        xra = release[a]
        start = indptr[a]
        for d in range(depth):
            total[d] = zero
            total_count[d] = 0
        for e in range(start, indptr[a + 1]):
            if prefetch and e + PREFETCH_AHEAD < n_entries:
                _prefetch(received, reverse[e + PREFETCH_AHEAD] * 2 * depth)
            # Unsigned indices: numba adds no test for a negative index.
            u = np.uint64(e)
            i = np.uint64(e - start)
            r = np.uint64(reverse[u])
            if test:
                tested = use[u] == 1 or not irrevocable
                keeps = tested & (abs(xra - received[r, 0]) - beta_new - beta_old <= zero)
                if keeps != (use[u] == 1):
                    _flip(e, keeps, same, use, counters)
                    changed = True
            mask = use[u]
            for d in range(depth):
                rows[i, d] = received[r, d] * F(mask)
                row_counts[i, d] = received_int[r, depth + d] * mask
                total[d] += rows[i, d]
                total_count[d] += row_counts[i, d]
        for e in range(start, indptr[a + 1]):
            u = np.uint64(e)
            i = np.uint64(e - start)
            sent[u, 0] = xra
            sent_int[u, depth] = 1
            for d in range(1, depth):
                c = total_count[d - 1] - row_counts[i, d - 1]
                sent_int[u, depth + d] = c
                sent[u, d] = total[d - 1] - rows[i, d - 1] if c else zero
        if record:
            numerator = (F(it) + F(1.0)) * x[a]
            denominator = it + 1
            for d in range(depth):
                numerator += total[d] * F(it - d)
                denominator += total_count[d] * (it - d)
            estimate[a] = numerator / F(denominator)
    return changed


@numba.njit(cache=True)
def b_colme_steps(F, segment: Segment, flags: Flags, links: Links, noise: Noise,
                  tables: Tables, state: BState, oracle_state: BOracle) -> None:
    """B-ColME (depth D = ``len(depths)``, :class:`Flags`) and its oracle, the steps
    ``it0`` .. ``it1`` − 1 of ``segment``: per step, every agent's running mean and
    release, then the tests and message passing (:func:`_belief_step`) of the method,
    and the oracle's on the same-class subgraph (:class:`BOracle`: its CSR, reverse
    entries and an all-ones mask). ``x`` and ``release`` are (2, N); messages
    (2, entries, 2D) with their integer views. With ``record``, ``estimate`` and
    ``oracle`` get the estimates at the last step.
    """
    it0, it1, samples, fresh = segment
    mechanism, _, _, record, _, _, _ = flags
    noise_sum, levels = noise
    keep_f, new_f, beta, _ = tables
    x, release, counters, messages, estimate, oracle = state
    message, message_int = messages
    oracle_links, oracle_messages, with_oracle = oracle_state
    oracle_message, oracle_message_int = oracle_messages
    n_agents = len(links.indptr) - 1
    private = mechanism != NO_MECHANISM
    for it in range(it0, it1):
        k = it - it0
        n = it + 1
        cur = it & 1
        prv = cur ^ 1
        last = record and it == it1 - 1
        keep, new = keep_f[n], new_f[n]
        for a in range(n_agents):
            xa = x[prv, a] * keep + samples[k, a] * new
            x[cur, a] = xa
            release[cur, a] = _release(F, mechanism, a, n, xa,
                                       fresh[k, a] if private else 0.0, noise_sum, levels)
        counters[CHANGED] = _belief_step(
            F, Step(it, last, True, beta[n], beta[n - 1]), flags, links,
            Messages(message[cur], message_int[cur]), Messages(message[prv], message_int[prv]),
            Agents(release[cur], x[cur], estimate), counters)
        if with_oracle:
            # Its entries are all used and never tested.
            _belief_step(F, Step(it, last, False, beta[n], beta[n - 1]), flags, oracle_links,
                         Messages(oracle_message[cur], oracle_message_int[cur]),
                         Messages(oracle_message[prv], oracle_message_int[prv]),
                         Agents(release[cur], x[cur], oracle), counters)
        if counters[WRONG] == 0:
            counters[LEARNT] = 1


@numba.njit(cache=True)
def local_steps(F, segment: Segment, x, tables: Tables) -> None:
    """The running means alone (the ``local`` method), the steps of ``segment``."""
    it0, it1, samples, _ = segment
    keep_f, new_f, _, _ = tables
    n_agents = x.shape[1]
    for it in range(it0, it1):
        n = it + 1
        cur = it & 1
        prv = cur ^ 1
        keep, new = keep_f[n], new_f[n]
        for a in range(n_agents):
            x[cur, a] = x[prv, a] * keep + samples[it - it0, a] * new


@numba.njit(cache=True)
def oracle_weights(F, indptr, indices, same, weight, self_weight, has_oracle) -> None:
    """Fill the oracle's static weights 1/(1 + max(|N_a|, |N_b|)) over the true
    same-class neighbours (0 elsewhere), the self weights 1 − Σ (summed in row order, as
    the reference) and whether an agent has any such neighbour."""
    one = F(1.0)
    n_agents = len(indptr) - 1
    true_count = np.zeros(n_agents, dtype=np.int64)
    for a in range(n_agents):
        for e in range(indptr[a], indptr[a + 1]):
            true_count[a] += same[e]
    for a in range(n_agents):
        s = one
        for e in range(indptr[a], indptr[a + 1]):
            weight[e] = F(0.0)
            if same[e]:
                w = one / (one + F(max(true_count[a], true_count[indices[e]])))
                weight[e] = w
                s -= w
        self_weight[a] = s
        has_oracle[a] = true_count[a] > 0


@numba.njit(cache=True)
def score(F, values, means, accuracy: float):
    """(mean squared error, fraction within ``accuracy``) of ``values`` against each
    agent's mean; the fraction as the reference tests it, |F(v − μ)| <= F(ε)."""
    bound = F(accuracy)
    squares = 0.0
    within = 0
    for a in range(len(values)):
        error = values[a] - means[a]
        squares += float(error) * float(error)
        within += abs(error) <= bound
    return squares / len(values), within / len(values)


@numba.njit(cache=True)
def component_means(x, labels, n_components: int):
    """The mean of x over each agent's component (the ideal estimate)."""
    sums = np.zeros(n_components)
    sizes = np.zeros(n_components)
    for a in range(len(x)):
        sums[labels[a]] += x[a]
        sizes[labels[a]] += 1.0
    out = np.empty(len(x))
    for a in range(len(x)):
        out[a] = sums[labels[a]] / sizes[labels[a]]
    return out


def noise_radius(t_max: int, mechanism: int, noise: str, sigma_dp: float, gamma: float,
                 epsilon: float) -> np.ndarray:
    """ρ(n), n = 0..t_max: a bound on |N_n|/n, the release's noise, holding with
    probability 1 − γ/(n(n + 1)) at each n (so at every n with probability 1 − γ).

    N_n sums k_n independent p-sum noises of standard deviation σ_DP (PM-I: k_n = n;
    PM-II: k_n = w_H(n), the set bits of n). Gaussian: |N_n| <= σ_DP √(2 k_n ln(2/p));
    Laplace (scale b = σ_DP/√2, sub-exponential with ν² = 4b², α = 2b, since
    1/(1 − b²λ²) <= exp(2b²λ²) for |λ| <= 1/(2b)): Bernstein's bound
    |N_n| <= max(b √(8 k_n ln(2/p)), 4b ln(2/p)). The staircase at a p-sum's ``epsilon``
    (of sensitivity Δ = σ_DP/√V_1(ε)): Chernoff's bound on its exact moment generating
    function, Δ times :func:`~sweep.components.staircase.sum_bound`.
    """
    radius = np.zeros(t_max + 1)
    if mechanism == NO_MECHANISM:
        return radius
    n = np.arange(1, t_max + 1, dtype=np.float64)
    log_term = np.log(2.0 * n * (n + 1.0) / gamma)
    if mechanism == PM1:
        terms = n
    else:
        terms = np.array([bin(i).count("1") for i in range(1, t_max + 1)], dtype=np.float64)
    if noise == "gaussian":
        bound = sigma_dp * np.sqrt(2.0 * terms * log_term)
    elif noise == "staircase":
        from ..components.staircase import staircase_variance, sum_bound

        step = sigma_dp / math.sqrt(staircase_variance(epsilon))
        bound = step * sum_bound(terms, log_term, epsilon)  # 2e^(−ln(2/p)) = p
    else:
        b = sigma_dp / math.sqrt(2.0)
        bound = np.maximum(b * np.sqrt(8.0 * terms * log_term), 4.0 * b * log_term)
    radius[1:] = bound / n
    return radius


__all__ = [
    "CHANGED",
    "C_FIELDS",
    "C_ORACLE",
    "C_RELEASE",
    "C_WEIGHT",
    "C_Y",
    "ENTERED",
    "GIVEN",
    "LEARNT",
    "LOST",
    "NO_MECHANISM",
    "N_COUNTERS",
    "PM1",
    "PM2",
    "T0",
    "WRONG",
    "Agents",
    "BOracle",
    "BState",
    "COracle",
    "CState",
    "Flags",
    "Links",
    "Messages",
    "Noise",
    "Segment",
    "Step",
    "Tables",
    "b_colme_steps",
    "c_colme_steps",
    "component_means",
    "local_steps",
    "noise_radius",
    "oracle_weights",
    "score",
    "step_tables",
]
