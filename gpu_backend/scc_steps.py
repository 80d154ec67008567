"""The SCC group steps of the gpu executor: persistent kernels in ``kernels/scc.cu``.

:meth:`SccSteps.scc_trim` replaces the trim rounds with ONE launch: each active vertex
counts its active in- and out-neighbours (the row lengths when every vertex is active), the
vertices at zero are removed, and removals are peeled level by level (a removed vertex
decrements its neighbours' counts; one that falls to zero is removed at the next level),
with a grid barrier between levels and no host decision. Rows longer than LONG_ROW are cut
into chunks that whole blocks handle, and a vertex's long row is not counted down (every
removal next to a hub would hit one word) but scanned once a level for an active
neighbour. :meth:`SccSteps.scc_signatures` labels everything left in ONE launch of min-id
propagation in both directions (see ``scc_signatures_fused`` in ``kernels/scc.cu``): every
vertex acts as a pivot at once, values travel many arcs per sweep (in place) and jump along
their own pointers, sweeps repeat until no value changes, and each round keeps only the
vertices not done and the arcs inside their classes, compacted, until none is left; all
decided on the device.

The gpu runs one trim and then the signatures on every graph (``scc_seed_phases =
"trim"``): on Kronecker graphs the signatures finish what the trim leaves in one round, so
the forward-backward search (a BFS whose levels the host drives) does not pay here.

Each step synchronizes a fixed number of times per call (sizes of the work, the count of
vertices left): never per level, sweep or round. The counts of the last call (trim levels,
signature rounds and sweeps) are kept on the device and read by :meth:`SccSteps.scc_counts`.
"""

from __future__ import annotations

import cupy as cp
import numpy as np

from . import _module
from .storage import ensure_fits
from .vector import GpuVector

_BLOCK = 512
_CTL = 8                       # control words of the kernels (zeroed by the allocation)


def _group_size(edges: int, vertices: int) -> int:
    """Lanes per vertex: the power of two nearest above the average degree, at most 32."""
    g = 1
    while g < 32 and g * max(vertices, 1) < edges:
        g *= 2
    return g


class SccSteps:
    """Mixin with the fused SCC steps; needs the primitive steps of the executor."""

    #: Relaxation passes a block makes over its tile of arcs per signature sweep (at
    #: most; it stops once a pass changes nothing), while the arcs fit in the L2 cache.
    scc_local_passes = 4
    #: One trim, then the signatures, on every graph: the signature kernel settles a
    #: power-law graph in a round (``bench/scc_notes.md``).
    scc_seed_phases = "trim"
    _scc_counts = None

    def scc_trim(self, A, AT, active, label) -> GpuVector:
        n, idx = A.n, A.index_dtype
        isz = np.dtype(idx).itemsize
        ensure_fits(n * (4 + 5 * isz + 9) + 64, "scc_trim")
        q = active.queue(idx)                                    # sync (size)
        left_values = cp.empty(n, dtype=np.int64)
        left = cp.zeros(n, dtype=bool)
        if q.size == 0:
            return GpuVector(n, left_values, left, nvals=0)
        st = cp.empty(n, dtype=np.int32)
        counter = np.uint32 if idx == np.int32 else np.uint64
        cin, cout = cp.empty(n, dtype=counter), cp.empty(n, dtype=counter)
        qa, qb = cp.empty(q.size, dtype=idx), cp.empty(q.size, dtype=idx)
        words = cp.zeros(_CTL, dtype=np.uint64)
        ctl, out = words[:4], words[4:]
        g = _group_size(A.nstored, n)
        (acv, aclo), (tcv, tclo) = _long_row_chunks(A), _long_row_chunks(AT)
        lv, lp = label.for_update()
        _module.launch_resident(
            _module.kernel("scc_trim_fused", idx), _module.grid_for(q.size * g, _BLOCK), _BLOCK,
            (A.indptr, A.indices, AT.indptr, AT.indices, active.present, n, q, q.size,
             acv, aclo, acv.size, tcv, tclo, tcv.size, np.int32(g), st, cin, cout, qa, qb,
             lv, lp, left_values, left, ctl, self._barrier(), out))
        label.touched()
        nleft, levels = (int(x) for x in out[:2].get())         # sync
        self._scc_counts = dict(self._scc_counts or {}, trim_levels=levels)
        return GpuVector(n, left_values, left, nvals=nleft)

    def scc_signatures(self, A, AT, active, label) -> None:
        n, idx = A.n, A.index_dtype
        q = active.queue(idx)                                    # sync (size)
        if q.size == 0:
            return
        start = cp.zeros(q.size + 1, dtype=np.int64)             # each row's first arc
        cp.cumsum(A.indptr[q + 1] - A.indptr[q], out=start[1:])
        m = int(start[-1])                                       # sync (arcs)
        pair = 2 * np.dtype(idx).itemsize
        ensure_fits((2 * m + n + q.size) * pair + 64, "scc_signatures")   # arcs x2, sig, q x2
        arcs, spare = cp.empty((m, 2), dtype=idx), cp.empty((m, 2), dtype=idx)
        if m:
            g = _group_size(m, q.size)
            acv, aclo = _long_row_chunks(A)
            _module.kernel("scc_gather_edges", idx)(
                (_module.grid_for(q.size * g, _BLOCK),), (_BLOCK,),
                (A.indptr, A.indices, active.present, q, q.size, start, np.int32(g), acv, aclo,
                 acv.size, arcs))
        sig = cp.empty((n, 2), dtype=idx)
        words = cp.zeros(_CTL, dtype=np.uint64)
        ctl, out = words[:6], words[6:]
        kernel = _module.kernel("scc_signatures_fused", idx)
        blocks = _module.resident_blocks(kernel, _module.grid_for(max(m, q.size), _BLOCK),
                                         _BLOCK)
        part = cp.empty(blocks, dtype=np.uint64)
        lv, lp = label.for_update()
        _module.launch_resident(
            kernel, blocks, _BLOCK,
            (q.copy(), cp.empty_like(q), q.size, arcs, spare, m, sig, lv, lp,
             np.int32(self.scc_local_passes), _module.l2_bytes() // pair, part, ctl,
             self._barrier(), out))
        label.touched()
        self._scc_counts = dict(self._scc_counts or {}, signature_words=out)

    def scc_counts(self) -> dict:
        """Counts of the last fused SCC steps: ``trim_levels`` (peeling levels of the last
        trim), ``signature_rounds`` and ``signature_sweeps`` (of the last
        :meth:`scc_signatures`, read from the device: a sync)."""
        counts = dict(self._scc_counts or {})
        words = counts.pop("signature_words", None)
        if words is not None:
            counts["signature_rounds"], counts["signature_sweeps"] = (
                int(x) for x in words[:2].get())                 # sync
        return counts


#: Rows longer than this are cut into chunks of CHUNK arcs, each counted and peeled by a
#: whole block (LONG_ROW and CHUNK in scc.cu).
LONG_ROW, CHUNK = 512, 2048


def _long_row_chunks(M) -> tuple[cp.ndarray, cp.ndarray]:
    """The chunks of the rows of ``M`` longer than LONG_ROW: each one's vertex (``M``'s
    index type) and first arc (int64), device arrays built from the host degrees and
    cached on ``M``."""
    chunks = getattr(M, "_scc_chunks", None)
    if chunks is None:
        deg = M.row_degree_host().astype(np.int64)
        rows = np.flatnonzero(deg > LONG_ROW)
        pieces = -(-deg[rows] // CHUNK)
        vertex = np.repeat(rows, pieces)
        first = np.concatenate(([0], np.cumsum(deg)))[vertex]
        k = np.arange(vertex.size) - np.repeat(np.cumsum(pieces) - pieces, pieces)
        chunks = M._scc_chunks = (cp.asarray(vertex.astype(M.index_dtype)),
                                  cp.asarray(first + k * CHUNK))
    return chunks
