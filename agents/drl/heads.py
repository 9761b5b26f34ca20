"""Policy heads over the paper's 2922 actions: the paper's flat softmax, or type-then-target.

A decision has a median of about a hundred legal actions, 95% of them trade offers, so a
flat softmax that starts near uniform spends almost all of its exploration on offers.
The *factored* head first chooses the action's type (the 13 blocks of Table I: exchange
offer, sell offer, ..., conclude, buy) and then its target within the block. Both are
masked softmaxes over the same legal actions, so the set of actions it can take equals
the flat head's (`tests/test_drl_heads.py`); what changes is how probability is spread:
an untrained factored policy offers a trade about as often as it concludes, however
many offers are legal.

A target's logit is a sum of per-component outputs (an exchange offer to opponent o
giving property g for property q scores e_o + e_g + e_q), so the head has 284 outputs
instead of 2922: a network learns "this property is worth offering" once for every
partner and every counterpart, and the last layer costs a tenth.

Each head maps the network's outputs to:
- `act`: one decision (sample, or the mode when greedy) and its log-probability;
- `log_prob`: a batch's log-probabilities and entropies, and `backward` their gradients.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from itertools import accumulate
from typing import Any, NamedTuple

import numpy as np
from agents.drl import encoding as E
from agents.drl.nn import masked_log_softmax

HEADS = ("factored", "flat")
N_TYPES = len(E.BLOCKS)
TYPE_START = np.array([start for _, start in E.BLOCKS] + [E.ACTION_DIM])
TYPE_OF = np.repeat(np.arange(N_TYPES), np.diff(TYPE_START))  # action -> its block


def _components() -> tuple[np.ndarray, int]:
    """(2922, 3) indices of the component outputs whose sum is each action's within-type
    logit (`n` = none, the padding column), and `n`, the number of components."""
    comp: list[list[int]] = [[] for _ in range(E.ACTION_DIM)]
    n = 0

    def new(k: int) -> int:
        nonlocal n
        n += k
        return n - k

    o, g, q = new(E.N_OPP), new(E.N_SLOTS), new(E.N_SLOTS)
    for opp in range(E.N_OPP):
        for give in range(E.N_SLOTS):
            for get in range(E.N_SLOTS):
                if get != give:
                    comp[E._exchange_index(opp, give, get)] = [o + opp, g + give, q + get]
    for block in (E.SELL_OFFER, E.BUY_OFFER):
        o, p, c = new(E.N_OPP), new(E.N_SLOTS), new(3)
        for opp in range(E.N_OPP):
            for j in range(E.N_SLOTS):
                for k in range(3):
                    comp[block + (opp * E.N_SLOTS + j) * 3 + k] = [o + opp, p + j, c + k]
    base = new(E.SKIP - E.IMPROVE)  # improve, sell building, (un)mortgage: one output each
    for i in range(E.IMPROVE, E.SKIP):
        comp[i] = [base + i - E.IMPROVE]
    out = np.full((E.ACTION_DIM, 3), n, dtype=np.int64)
    for i, c in enumerate(comp):
        out[i, :len(c)] = c
    return out, n


COMPONENTS, N_COMPONENTS = _components()
FACTORED_DIM = N_TYPES + N_COMPONENTS  # 13 type logits, then the components: 284


class FlatHead:
    """The paper's head: one logit per action, a masked softmax over the legal ones."""

    name = "flat"
    out_dim = E.ACTION_DIM

    def prior(self) -> np.ndarray:
        from agents.drl.ppo import policy_prior
        return policy_prior()

    def act(self, mlp: Any, x: np.ndarray, idx: np.ndarray, rng: Any,
            greedy: bool) -> tuple[int, float]:
        z = mlp.forward_legal(x, idx).astype(np.float64)
        z -= z.max()
        p = np.exp(z)
        p /= p.sum()
        k = int(np.argmax(p)) if greedy else int(min(np.searchsorted(np.cumsum(p), rng.random()),
                                                      len(p) - 1))
        return int(idx[k]), float(np.log(p[k] + 1e-30))

    def probs(self, out: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.exp(masked_log_softmax(out, mask)) * mask

    def log_prob(self, out: np.ndarray, mask: np.ndarray,
                 actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, Any]:
        rows = np.arange(len(actions))
        logp_all = masked_log_softmax(out, mask)
        p = np.exp(logp_all) * mask
        entropy = -(p * logp_all).sum(axis=1)
        return logp_all[rows, actions], entropy, (p, logp_all, entropy, mask, actions)

    def backward(self, cache: Any, g_logp: np.ndarray, g_ent: np.ndarray) -> np.ndarray:
        p, logp_all, entropy, mask, actions = cache
        grad = -p * g_logp[:, None]
        grad[np.arange(len(actions)), actions] += g_logp
        grad -= g_ent[:, None] * p * (logp_all + entropy[:, None])
        return np.where(mask, grad, 0.0)


class FactoredHead:
    """Type first (13 blocks), then the target within the type (summed components)."""

    name = "factored"
    out_dim = FACTORED_DIM

    def prior(self) -> np.ndarray:
        """Type biases: pass/conclude likely (+2), mortgaging and selling buildings less
        (-1), buying above declining (+3): the start explores every type, offers in a
        few decisions of each phase, and buys an affordable property 3 times in 4."""
        b = np.zeros(FACTORED_DIM, dtype=np.float32)
        t = {name: k for k, (name, _) in enumerate(E.BLOCKS)}
        b[t["skip"]] = b[t["conclude"]] = 2.0
        b[t["mortgage"]] = b[t["sell_building"]] = -1.0
        b[t["buy"]] = 3.0
        return b

    # The outputs in float64 and a 0 after them (the padding component): one buffer for
    # every decision (a playing agent decides ~1,000 times a game; `act` never nests).
    _out = np.zeros(FACTORED_DIM + 1)

    def act(self, mlp: Any, x: np.ndarray, idx: np.ndarray, rng: Any,
            greedy: bool) -> tuple[int, float]:
        out = mlp.forward_one(x)
        # idx ascends, so one searchsorted gives each type's [start, stop) in idx: the
        # legal types and the chosen type's actions without boolean masks (fewer calls).
        bounds = idx.searchsorted(TYPE_START).tolist()
        legal_types = [t for t in _TYPES if bounds[t] < bounds[t + 1]]
        if PY_FLOATS:  # the 13 type logits as Python floats (float32 -> float64 exactly)
            types = out[:N_TYPES].tolist()
            k, lp = _choose_small([types[t] for t in legal_types], rng, greedy)
        else:
            buf = self._out
            buf[:-1] = out
            k, lp = _choose(buf[legal_types], rng, greedy)
        t = legal_types[k]
        lo, hi = bounds[t], bounds[t + 1]
        if hi - lo == 1:
            return int(idx[lo]), lp
        among = idx[lo:hi]
        if PY_FLOATS and hi - lo <= SMALL:
            # a few targets (most decisions but offers): each logit's three components
            # summed left to right in Python floats, as numpy's reduce of a row adds them
            comp = out[N_TYPES:].tolist()
            comp.append(0.0)  # the padding component
            a = among.tolist()
            z = []
            for i in a:
                c0, c1, c2 = _COMPONENT_LISTS[i]
                z.append(comp[c0] + comp[c1] + comp[c2])
            j, lp_target = _choose_small(z, rng, greedy)
            return a[j], lp + lp_target
        buf = self._out
        buf[:-1] = out
        comp = buf[N_TYPES:]
        j, lp_target = _choose(_ADD(comp[COMPONENTS[among]], axis=1), rng, greedy)
        return int(among[j]), lp + lp_target

    def act_reference(self, mlp: Any, x: np.ndarray, idx: np.ndarray, rng: Any,
                      greedy: bool) -> tuple[int, float]:
        """`act` as first written (boolean masks per type), kept as the reference the
        tests compare it with."""
        buf = np.zeros(FACTORED_DIM + 1)
        buf[:-1] = mlp.forward_one(x)
        types = TYPE_OF[idx]
        first = np.concatenate((_TRUE, types[1:] != types[:-1]))
        legal_types = types[first]
        k, lp = _choose_reference(buf[legal_types], rng, greedy)
        among = idx[types == legal_types[k]]
        if len(among) == 1:
            return int(among[0]), lp
        comp = buf[N_TYPES:]
        j, lp_target = _choose_reference(comp[COMPONENTS[among]].sum(axis=1), rng, greedy)
        return int(among[j]), lp + lp_target

    def _legal(self, out: np.ndarray, mask: np.ndarray) -> _Legal:
        """The distribution over each row's legal actions, kept as flat lists (a decision
        has ~100 legal actions of 2922: dense rows cost 30 times the work)."""
        r, a = np.nonzero(mask)  # row-major, so each row's actions ascend, as their types do
        if len(np.unique(r)) != len(mask):
            raise ValueError("every decision needs a legal action")
        seg = r * N_TYPES + TYPE_OF[a]
        starts = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])  # one (row, type) each
        seg_id = np.cumsum(np.r_[True, seg[1:] != seg[:-1]]) - 1
        seg_row, seg_type = r[starts], TYPE_OF[a[starts]]
        row_starts = np.flatnonzero(np.r_[True, seg_row[1:] != seg_row[:-1]])
        zt = out[seg_row, seg_type]
        lpt = zt - _segment_lse(zt, row_starts)[seg_row]
        comp = np.concatenate([out[:, N_TYPES:], np.zeros((len(out), 1), out.dtype)], axis=1)
        z = comp[r[:, None], COMPONENTS[a]].sum(axis=1)
        lw = z - _segment_lse(z, starts)[seg_id]
        return _Legal(r, a, seg_id, starts, seg_row, seg_type, row_starts, lpt, lw)

    def probs(self, out: np.ndarray, mask: np.ndarray) -> np.ndarray:
        L = self._legal(out, mask)
        p = np.zeros(mask.shape)
        p[L.r, L.a] = np.exp(L.lpt[L.seg_id] + L.lw)
        return p

    def log_prob(self, out: np.ndarray, mask: np.ndarray,
                 actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, Any]:
        L = self._legal(out, mask)
        pos = np.searchsorted(L.r * E.ACTION_DIM + L.a,
                              np.arange(len(actions)) * E.ACTION_DIM + actions)
        q = np.exp(L.lw)
        h_seg = -np.add.reduceat(q * L.lw, L.starts)  # entropy within each legal type
        pt = np.exp(L.lpt)
        entropy = np.add.reduceat(pt * (h_seg - L.lpt), L.row_starts)
        logp = L.lpt[L.seg_id[pos]] + L.lw[pos]
        return logp, entropy, (L, pos, q, pt, h_seg, entropy, out.shape)

    def backward(self, cache: Any, g_logp: np.ndarray, g_ent: np.ndarray) -> np.ndarray:
        L, pos, q, pt, h_seg, entropy, shape = cache
        chosen = L.seg_id[pos]  # each row's chosen (row, type) segment
        # type logits: d log p(a) = onehot(type(a)) - pt; dH/dt_k = pt_k (H_k - log pt_k - H)
        g_seg = -pt * g_logp[L.seg_row]
        g_seg[chosen] += g_logp
        g_seg += g_ent[L.seg_row] * pt * (h_seg - L.lpt - entropy[L.seg_row])
        # within-type logits: d log p(a) = onehot(a) - q on a's type;
        # dH/dz_a = -pt_k q_a (log q_a + H_k) for a of type k
        g_w = -q * g_logp[L.r] * (L.seg_id == chosen[L.r])
        g_w[pos] += g_logp
        g_w -= g_ent[L.r] * pt[L.seg_id] * q * (L.lw + h_seg[L.seg_id])
        rows = shape[0]
        width = N_COMPONENTS + 1
        flat = (L.r[:, None] * width + COMPONENTS[L.a]).ravel()
        g_c = np.bincount(flat, weights=np.repeat(g_w, 3), minlength=rows * width)
        grad = np.zeros(shape)
        grad[L.seg_row, L.seg_type] = g_seg
        grad[:, N_TYPES:] = g_c.reshape(rows, width)[:, :N_COMPONENTS]
        return grad


class _Legal(NamedTuple):
    """Each row's legal actions (r, a), grouped in (row, type) segments."""

    r: np.ndarray
    a: np.ndarray
    seg_id: np.ndarray  # the segment of each legal action
    starts: np.ndarray  # first legal action of each segment
    seg_row: np.ndarray
    seg_type: np.ndarray
    row_starts: np.ndarray  # first segment of each row
    lpt: np.ndarray  # log p(type), per segment
    lw: np.ndarray  # log p(action | type), per legal action


def _segment_lse(z: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """log-sum-exp of each segment of `z` (segments begin at `starts`)."""
    m = np.maximum.reduceat(z, starts)
    lengths = np.diff(np.r_[starts, len(z)])
    return m + np.log(np.add.reduceat(np.exp(z - np.repeat(m, lengths)), starts))


def _log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max()
    return z - np.log(np.exp(z).sum())


_TRUE = np.ones(1, dtype=bool)


_TYPES = tuple(range(N_TYPES))
_ADD = np.add.reduce  # = ndarray.sum, without its Python wrapper


# Up to this many choices (every type choice: 13 types), `_choose` runs its max, running
# sum and search on Python floats: at that size a numpy call costs its overhead.
SMALL = 16


def _pairwise_sum(v: list) -> float:
    """numpy's `add.reduce` of a float64 array of up to 128 values, step for step (its
    pairwise sum: 8 running sums from 8 values on, added in pairs, then the rest)."""
    n = len(v)
    if n < 8:
        s = 0.0
        for x in v:
            s += x
        return s
    r = v[:8]
    stop = n - n % 8
    for i in range(8, stop, 8):
        for j in range(8):
            r[j] += v[i + j]
    s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    for i in range(stop, n):
        s += v[i]
    return s


def _python_floats_agree() -> bool:
    """Whether Python's `math.exp`/`math.log` and `_pairwise_sum` give numpy's float64
    results bit for bit here: true where numpy calls the C library's exp and log (no
    AVX-512 loops of its own); then `_choose_small` may run on Python floats."""
    rng = np.random.default_rng(12345)
    z = np.concatenate((rng.uniform(-50.0, 5.0, 1500), -np.arange(0, 745, 1.3),
                        rng.standard_normal(500) * 1e-3))
    if not np.array_equal(np.exp(z), np.array([math.exp(v) for v in z.tolist()])):
        return False
    w = np.concatenate((rng.uniform(1.0, 20.0, 1500), rng.uniform(1e-300, 1.0, 300)))
    if not np.array_equal(np.log(w), np.array([math.log(v) for v in w.tolist()])):
        return False
    for n in range(1, SMALL + 1):
        for _ in range(20):
            v = rng.standard_normal(n) * rng.uniform(0.01, 100.0)
            if _ADD(v) != _pairwise_sum(v.tolist()):
                return False
    return True


def _choose_small(zl: list, rng: Any, greedy: bool) -> tuple[int, float]:
    """`_choose` on a list of at most `SMALL` Python floats, without numpy: the same
    floats (checked once by `_python_floats_agree`), the same draw. Why: a decision
    makes two picks, and at 13 values each numpy call costs its overhead."""
    n = len(zl)
    if n == 1:
        return 0, 0.0
    m = max(zl)
    shifted = [v - m for v in zl]
    log_total = math.log(_pairwise_sum([math.exp(v) for v in shifted]))
    if greedy:
        k = zl.index(m)  # the first maximum
    else:
        k = min(bisect_left(list(accumulate([math.exp(v - log_total) for v in shifted])),
                            rng.random()), n - 1)
    return k, shifted[k] - log_total


def _choose(z: np.ndarray, rng: Any, greedy: bool) -> tuple[int, float]:
    """An index sampled from softmax(z) (its argmax when greedy) and its log-probability.
    The arithmetic of `_choose_reference`, step for step (the same floats, the same
    draw), with fewer calls: a decision makes two of these."""
    n = len(z)
    if n == 1:
        return 0, 0.0  # (what the softmax gives: log 1)
    small = n <= SMALL
    zl = z.tolist() if small else None
    shifted = z - (max(zl) if small else z.max())  # (a max is exact either way)
    # numpy's exp and pairwise sum, as the reference: Python's would round differently
    lp = shifted - np.log(_ADD(np.exp(shifted)))
    if greedy:
        k = zl.index(max(zl)) if small else int(z.argmax())  # the first maximum
    elif small:
        # = cumsum (a left-to-right running sum) and searchsorted (side="left")
        k = min(bisect_left(list(accumulate(np.exp(lp).tolist())), rng.random()), n - 1)
    else:
        k = min(int(np.exp(lp).cumsum().searchsorted(rng.random())), n - 1)
    return k, lp.item(k)


def _choose_reference(z: np.ndarray, rng: Any, greedy: bool) -> tuple[int, float]:
    """`_choose` as first written (the tests' reference)."""
    if len(z) == 1:
        return 0, 0.0
    lp = _log_softmax(z)
    if greedy:
        k = int(np.argmax(z))
    else:
        k = int(min(np.searchsorted(np.cumsum(np.exp(lp)), rng.random()), len(z) - 1))
    return k, float(lp[k])


_COMPONENT_LISTS = tuple(map(tuple, COMPONENTS.tolist()))
PY_FLOATS = _python_floats_agree()


def make_head(name: str) -> FlatHead | FactoredHead:
    if name == "flat":
        return FlatHead()
    if name == "factored":
        return FactoredHead()
    raise ValueError(f"unknown head {name!r}; valid: {', '.join(HEADS)}")
