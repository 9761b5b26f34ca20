"""A small numpy MLP (ReLU hidden layers, linear output), Adam, and masked softmax/argmax.

No deep-learning framework: the networks are a few matrices, and numpy's BLAS does the
work. `forward`/`backward` handle batches (training); `forward_one` answers one decision
with preallocated float32 buffers (inference, well under a millisecond for the paper's
240 -> 1024 -> 512 -> 2922 network on one core).
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

PAPER_SIZES = (240, 1024, 512, 2922)  # Appendix B: two hidden layers, ReLU
NEG = np.float32(-1e9)  # logit of a masked action


class MLP:
    """Dense layers `sizes[0] -> ... -> sizes[-1]`; ReLU between, none after the last."""

    def __init__(self, sizes: Sequence[int], rng: np.random.Generator | None = None,
                 dtype=np.float32, out_scale: float = 1.0) -> None:
        self.sizes = tuple(int(s) for s in sizes)
        self.dtype = dtype
        rng = rng or np.random.default_rng(0)
        self.W: list[np.ndarray] = []
        self.b: list[np.ndarray] = []
        for i, (n_in, n_out) in enumerate(zip(self.sizes[:-1], self.sizes[1:])):
            scale = np.sqrt(2.0 / n_in)  # He initialisation for ReLU inputs
            if i == len(self.sizes) - 2:
                scale *= out_scale
            self.W.append((rng.standard_normal((n_in, n_out)) * scale).astype(dtype))
            self.b.append(np.zeros(n_out, dtype=dtype))
        self._one = [np.zeros(n, dtype=np.float32) for n in self.sizes[1:]]
        self._cache: list[np.ndarray] = []
        self._last_t: np.ndarray | None = None  # last layer transposed, for forward_legal
        self._since_sync = 0  # forward_legal calls since the weights last changed

    # -- parameters -----------------------------------------------------------------
    def params(self) -> list[np.ndarray]:
        return [p for pair in zip(self.W, self.b) for p in pair]

    def copy_from(self, other: "MLP") -> None:
        for p, q in zip(self.params(), other.params()):
            p[...] = q

    def state_dict(self, prefix: str) -> dict[str, np.ndarray]:
        out = {}
        for i, (w, b) in enumerate(zip(self.W, self.b)):
            out[f"{prefix}W{i}"] = w
            out[f"{prefix}b{i}"] = b
        return out

    def load_state_dict(self, data, prefix: str, source: str = "weights") -> None:
        """Copy arrays in, refusing any missing or wrongly shaped one (one-line error)."""
        for i, (w, b) in enumerate(zip(self.W, self.b)):
            for name, dst in ((f"{prefix}W{i}", w), (f"{prefix}b{i}", b)):
                if name not in data:
                    raise ValueError(f"{source}: missing array {name!r}")
                src = np.asarray(data[name])
                if src.shape != dst.shape:
                    raise ValueError(f"{source}: {name} has shape {src.shape}, "
                                     f"expected {dst.shape} (network {self.sizes})")
                if not np.all(np.isfinite(src)):
                    raise ValueError(f"{source}: {name} holds non-finite values")
                dst[...] = src

    # -- inference ------------------------------------------------------------------
    def hidden(self, x: np.ndarray) -> np.ndarray:
        """A batch's last hidden layer (no cache)."""
        h = x
        for w, b in zip(self.W[:-1], self.b[:-1]):
            h = h @ w + b
            np.maximum(h, 0.0, out=h)
        return h

    def predict(self, x: np.ndarray) -> np.ndarray:
        """A batch's outputs (no cache)."""
        return self.hidden(x) @ self.W[-1] + self.b[-1]

    def forward_one(self, x: np.ndarray) -> np.ndarray:
        """One input vector -> output (a fresh array). Why `np.dot` without `out=`: it
        calls the same BLAS product (the same floats, bit for bit) and its `out=` check
        cost a third of a playing agent's forward pass; the arrays are a few KB."""
        h = x
        for w, b in zip(self.W[:-1], self.b[:-1]):
            h = np.dot(h, w)
            h += b
            np.maximum(h, 0.0, out=h)
        h = np.dot(h, self.W[-1])
        h += self.b[-1]
        return h

    def sync(self) -> None:
        """Call after changing the weights: refreshes the copy `forward_legal` reads."""
        self._last_t = None
        self._since_sync = 0

    def forward_legal(self, x: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """The outputs at `idx` only (the legal actions): the last layer is most of the
        network, and a decision has few legal actions, so this skips most of the work."""
        h = x
        for w, b, out in zip(self.W[:-1], self.b[:-1], self._one):
            np.dot(h, w, out=out)
            out += b
            np.maximum(out, 0.0, out=out)
            h = out
        if len(idx) * 3 > self.sizes[-1]:  # many legal actions: the full product is cheaper
            return (h @ self.W[-1])[idx] + self.b[-1][idx]
        if self._last_t is None:
            # Why: the transposed copy costs ~20 gathers of columns; a learner that
            # updates every few decisions (DDQN) is cheaper gathering its columns.
            self._since_sync += 1
            if self._since_sync <= 32:
                return h @ self.W[-1][:, idx] + self.b[-1][idx]
            self._last_t = np.ascontiguousarray(self.W[-1].T)
        return self._last_t[idx] @ h + self.b[-1][idx]

    # -- training -------------------------------------------------------------------
    def forward(self, x: np.ndarray) -> np.ndarray:
        """A batch (B, in) -> (B, out), keeping what `backward` needs."""
        self._cache = [x]
        h = x
        last = len(self.W) - 1
        for i, (w, b) in enumerate(zip(self.W, self.b)):
            h = h @ w + b
            if i < last:
                np.maximum(h, 0.0, out=h)
            self._cache.append(h)
        return h

    def forward_picked(self, x: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Output `cols[i]` of row i only (with (B, k) columns: the sum of row i's k
        outputs), keeping what `backward_picked` needs. Why: a Q-learning loss touches one
        output per row (two with a state-value output), and the last layer is most of the
        network."""
        self._cache = [x]
        h = x
        for w, b in zip(self.W[:-1], self.b[:-1]):
            h = h @ w + b
            np.maximum(h, 0.0, out=h)
            self._cache.append(h)
        cols = np.asarray(cols)
        self._picked = cols.reshape(len(x), -1)
        k = self._picked.shape[1]
        flat = self._picked.ravel()
        out = np.einsum("ij,ji->i", np.repeat(h, k, axis=0), self.W[-1][:, flat]) \
            + self.b[-1][flat]
        return out.reshape(len(x), k).sum(axis=1)

    def backward_picked(self, grad: np.ndarray) -> list[np.ndarray]:
        """`backward` for the outputs of the last `forward_picked` (dLoss/d output, (B,))."""
        k = self._picked.shape[1]
        cols = self._picked.ravel()
        g = np.repeat(grad.astype(self.dtype, copy=False), k)
        h = self._cache[-1]
        used, which = np.unique(cols, return_inverse=True)
        self.picked_used = used  # the last layer's columns with a gradient (lazy Adam)
        onehot = np.zeros((len(cols), len(used)), dtype=self.dtype)
        onehot[np.arange(len(cols)), which] = g
        g_w = np.zeros((self.sizes[-2], self.sizes[-1]), dtype=self.dtype)
        g_w[:, used] = np.repeat(h, k, axis=0).T @ onehot
        g_b = np.zeros(self.sizes[-1], dtype=self.dtype)
        g_b[used] = onehot.sum(axis=0)
        g_in = (g[:, None] * self.W[-1][:, cols].T).reshape(len(h), k, -1).sum(axis=1) \
            * (h > 0)
        return self.backward(g_in, layers=len(self.W) - 1) + [g_w, g_b]

    def backward(self, grad_out: np.ndarray, layers: int | None = None) -> list[np.ndarray]:
        """Gradients of the loss w.r.t. `params()` given dLoss/dOutput of the last batch
        (of the first `layers` layers' output, if given)."""
        grads: list[np.ndarray] = []
        g = grad_out.astype(self.dtype, copy=False)
        top = len(self.W) if layers is None else layers
        for i in range(top - 1, -1, -1):
            h_in = self._cache[i]
            grads.append(g.sum(axis=0))  # b
            grads.append(h_in.T @ g)  # W
            if i > 0:
                g = (g @ self.W[i].T) * (h_in > 0)
        grads.reverse()  # [W0, b0, W1, b1, ...]
        return grads


class Adam:
    """Adam (Kingma & Ba) with optional global gradient-norm clipping.

    Every `FLUSH_EVERY` steps (and on loading) moments below the smallest normal float
    become zero. Why: a weight whose gradient stays zero (a dead unit, a feature never
    set) has moments decaying through the subnormal range, where float32 arithmetic is
    several times slower; late in a DDQN run half of a layer's moments were subnormal and
    a step took 3.9 ms instead of 1.0. Their updates were below a weight's resolution."""

    FLUSH_EVERY = 16

    def __init__(self, params: list[np.ndarray], lr: float = 1e-4, beta1: float = 0.9,
                 beta2: float = 0.999, eps: float = 1e-8, max_grad_norm: float | None = 0.5):
        self.params = params
        self.lr, self.beta1, self.beta2, self.eps = lr, beta1, beta2, eps
        self.max_grad_norm = max_grad_norm
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.scratch = [np.empty_like(p) for p in params]
        self.t = 0

    def step(self, grads: list[np.ndarray], cols: dict[int, np.ndarray] | None = None) -> float:
        """Apply one update; returns the gradient norm before clipping.

        `cols` {parameter index: columns}: those parameters are updated, moments
        included, only in the given columns of their last axis (lazy Adam, as TF's
        LazyAdam and torch's SparseAdam: the other columns' gradients must be zero)."""
        cols = cols or {}
        sq = 0.0
        for j, g in enumerate(grads):
            gj = g[..., cols[j]] if j in cols else g
            sq += float(np.dot(gj.ravel(), gj.ravel()))
        norm = float(np.sqrt(sq))
        scale = 1.0
        if self.max_grad_norm is not None and norm > self.max_grad_norm:
            scale = self.max_grad_norm / (norm + 1e-12)
        self.t += 1
        b1, b2 = self.beta1, self.beta2
        lr_t = self.lr * np.sqrt(1 - b2 ** self.t) / (1 - b1 ** self.t)
        for j, (p, g, m, v, tmp) in enumerate(zip(self.params, grads, self.m, self.v,
                                                   self.scratch)):
            if j in cols:
                c = cols[j]
                gc = g[..., c]
                mc = m[..., c] * b1 + gc * ((1 - b1) * scale)
                vc = v[..., c] * b2 + gc * gc * ((1 - b2) * scale * scale)
                m[..., c], v[..., c] = mc, vc
                p[..., c] -= lr_t * mc / (np.sqrt(vc) + self.eps)
                continue
            # Why in place, into one scratch buffer per parameter: a step touches every
            # weight ~10 times, and fresh temporaries of that size cost more than the math.
            np.multiply(g, (1 - b1) * scale, out=tmp)
            m *= b1
            m += tmp
            np.multiply(g, g, out=tmp)
            tmp *= (1 - b2) * scale * scale
            v *= b2
            v += tmp
            np.sqrt(v, out=tmp)
            tmp += self.eps
            np.divide(m, tmp, out=tmp)
            tmp *= lr_t
            p -= tmp
        if self.t % self.FLUSH_EVERY == 0:
            self._flush()
        return norm

    def _flush(self) -> None:
        """Subnormal moments to zero (see the class docstring)."""
        for m, v, tmp in zip(self.m, self.v, self.scratch):
            tiny = np.finfo(m.dtype).tiny
            np.abs(m, out=tmp)
            np.copyto(m, 0, where=tmp < tiny)
            np.copyto(v, 0, where=v < tiny)

    def state_dict(self, prefix: str) -> dict[str, np.ndarray]:
        out = {f"{prefix}t": np.array(self.t)}
        for i, (m, v) in enumerate(zip(self.m, self.v)):
            out[f"{prefix}m{i}"] = m
            out[f"{prefix}v{i}"] = v
        return out

    def load_state_dict(self, data, prefix: str) -> None:
        self.t = int(data[f"{prefix}t"])
        for i, (m, v) in enumerate(zip(self.m, self.v)):
            m[...] = data[f"{prefix}m{i}"]
            v[...] = data[f"{prefix}v{i}"]
        self._flush()


# -- masked distributions -----------------------------------------------------------------
def masked_logits(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return np.where(mask, logits, NEG)


def masked_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Softmax over the True entries of `mask` (last axis); masked entries get 0."""
    z = masked_logits(logits, mask)
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z) * mask
    return e / e.sum(axis=-1, keepdims=True)


def masked_log_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    z = masked_logits(logits, mask)
    z = z - z.max(axis=-1, keepdims=True)
    lse = np.log((np.exp(z) * mask).sum(axis=-1, keepdims=True))
    return np.where(mask, z - lse, 0.0)


def masked_argmax(values: np.ndarray, mask: np.ndarray) -> np.ndarray | int:
    """The highest-valued True entry of `mask` (last axis)."""
    return np.argmax(np.where(mask, values, -np.inf), axis=-1)


def save_npz(path: str | Path, arrays: dict[str, np.ndarray], half: bool = False) -> None:
    """Write arrays (float arrays as float16 when `half`) atomically."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp.npz")
    out = {k: (v.astype(np.float16) if half and v.dtype.kind == "f" else v)
           for k, v in arrays.items()}
    np.savez_compressed(tmp, **out)
    tmp.replace(path)
