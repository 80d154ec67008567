"""The SCC group steps of the gpu executor: persistent kernels in ``kernels/scc.cu``, and
a host finish where the device cannot win.

:meth:`SccSteps.scc_trim` replaces the trim rounds with ONE launch: each active vertex
counts its active in- and out-neighbours (the row lengths when every vertex is active), the
vertices at zero are removed, and removals are peeled level by level (a removed vertex
decrements its neighbours' counts; one that falls to zero is removed at the next level),
with a grid barrier between levels and no host decision. Rows longer than LONG_ROW are cut
into chunks that whole blocks handle, and a vertex's long row is not counted down (every
removal next to a hub would hit one word) but scanned once a level for an active
neighbour. :meth:`SccSteps.scc_signatures` labels everything left in ONE launch of min-id
propagation in both directions (see ``scc_signatures_fused`` in ``kernels/scc.cu``): every
vertex acts as a pivot at once, values travel many arcs per sweep (in place; along whole
runs of arcs that follow each other where ids number the graph's paths,
:func:`next_id_share`) and jump along their own pointers, sweeps repeat until no value
changes, and each round keeps only the vertices not done and the arcs inside their
classes, compacted, until none is left; all decided on the device.

The gpu first labels the component of the pivot (the largest hub) on every graph large
enough to pay (``scc_seed_phases = "pivot"``): :meth:`SccSteps.scc_pivot_component` runs a
forward and a backward search from it, each ONE launch of the BFS ``search`` kernel, and
gives them up where they run deep (grids, meshes, road maps, chains of components). On a
uniform random or Kronecker graph the giant component is most of the vertices and the
searches take tens of levels, where the signature sweeps over all the arcs cost more. Then
one trim, then the signatures.

Two cases go to the host's compiled loops (the fused cpu executor's peeling queue and
Pearce's variant of Tarjan's algorithm, ``lagraph_py/cpu_steps/scc.py``), run on the
matrices' host arrays, with the labels copied to the device once (a small graph's staged
in the label vector until it is read, :meth:`GpuVector.stage_host`):

- a **small graph** (at most ``scc_host_items`` vertices plus arcs): each sweep of the
  kernel costs a grid barrier of a few microseconds and a call several launches and syncs,
  while the host labels a few thousand vertices in tens of microseconds;
- a **deep rest**: the signatures need as many sweeps as labels travel, so on a chain of
  components (each reaching the next) they take a sweep per arc of the chain. A round of
  the kernel therefore runs at most ``scc_host_share`` times the time the host would take
  for all the round started with (``HOST_NS_PER_ITEM`` per vertex and arc), and the
  kernel at most ``scc_handoff_sweeps`` sweeps in all; then it hands the vertices not done
  over (a union of whole components), which the host labels by Tarjan's algorithm. A
  round that finishes in time has labelled whole components, so only a round that stalls
  (a deep rest) costs the detour, at most that share of the host's own time. On a graph
  without hubs of at most ``scc_race_items`` vertices plus arcs the round does not hand
  over but races the host's Tarjan on the whole graph (:mod:`.scc_race`).

Each step synchronizes a fixed number of times per call (sizes of the work, the count of
vertices left or handed over): never per level, sweep or round. The counts of the last
call (trim levels, signature rounds, sweeps, vertices handed over and a log of the first
rounds) are read by :meth:`SccSteps.scc_counts`.
"""

from __future__ import annotations

import cupy as cp
import numpy as np

from . import _module, host_handover
from .bfs_steps import SearchPlan
from .bfs_steps import working_set as search_working_set
from .scc_race import Race, hub_free
from .storage import (ensure_fits, free_bytes, in_managed_memory, long_row_chunks,
                      streamed_alloc)
from .vector import GpuVector

_BLOCK = 512
_MAX_BLOCKS = 1024                   # the most blocks scc_signatures_fused scans (MAX_BLOCKS)
_CTL = 8                       # control words of the kernels (zeroed by the allocation)
#: Rounds whose end the signature kernel logs (LOG_ROUNDS in scc.cu).
LOG_ROUNDS = 32
#: Nanoseconds the cpu executor takes per vertex plus arc of an SCC on the hosts of the
#: lent H100s, at the least: 13-17 on a randomly oriented grid and a swept mesh (40-57 ms
#: for 1M vertices and 2M arcs, 129-159 ms for 2.1M and 6.9M), 60-110 on a chain of
#: cycles with shuffled ids (``bench/scc_notes.md``).
HOST_NS_PER_ITEM = 16
_NEVER = (1 << 63) - 1


def trim_working_set(n: int, index_dtype) -> int:
    """Device bytes of one trim on ``n`` vertices besides the CSR and its transpose: the
    vertices left (values and presence), the status, two counters and two queues per
    vertex, the control words."""
    return n * (4 + 5 * np.dtype(index_dtype).itemsize + 9) + 64


def signatures_working_set(n: int, m: int, q: int, index_dtype) -> int:
    """Device bytes of one signatures call on ``q`` of ``n`` vertices with ``m`` arcs among
    them: the arcs gathered (compacted in place between rounds), the signatures and the
    queue twice, in pairs of ids, and each row's first arc (8 bytes a vertex)."""
    return (m + n + q) * 2 * np.dtype(index_dtype).itemsize + 8 * (q + 1) + 64


def pivot_working_set(n: int, index_dtype, kept: bool = False) -> int:
    """Device bytes of one :meth:`SccSteps.scc_pivot_component` on ``n`` vertices besides
    the CSR and its transpose: the levels of its two searches and the list of the vertices
    left, and unless ``kept`` (with the graph from an earlier call) one search's scratch
    and the heads of two pull lists."""
    size = np.dtype(index_dtype).itemsize
    if kept:
        return n * (16 + size)
    return search_working_set(n, index_dtype) + 3 * n * size


def next_id_share(A) -> float:
    """The share of the rows of ``A`` (a device matrix) whose last entry is the next id
    (:attr:`SccSteps.scc_run_share`). One count on the device and its sync, cached on
    ``A``; 0.0, without either, where ``A`` has no entries or lies in managed memory (the
    reads would cross the host link).

    Examples
    --------
    >>> import lagraph_py as lg
    >>> from lagraph_py.executor import get_executor
    >>> ex = get_executor("gpu")
    >>> chain = lg.generate.cycle_chain(10, 100)            # cycles numbered along them
    >>> shuffled = lg.generate.cycle_chain(10, 100, shuffle=True)
    >>> [round(next_id_share(ex.matrix(G, loops=False)), 2) for G in (chain, shuffled)]
    [1.0, 0.0]
    """
    share = getattr(A, "_next_id_share", None)
    if share is None:
        n = A.n
        if n < 2 or not A.nstored or in_managed_memory(A.indices):
            share = 0.0
        else:
            ends = A.indptr[1:n]
            last = A.indices[cp.maximum(ends - 1, 0)]
            steps = (ends > A.indptr[:n - 1]) & (last == cp.arange(1, n, dtype=last.dtype))
            share = int(cp.count_nonzero(steps)) / n                     # sync (once)
        A._next_id_share = share
    return share


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
    #: Where a cycle numbered along itself fits in a tile, a value travelling against the
    #: id order crosses one arc a pass, so more passes spare whole sweeps; on a swept mesh
    #: each pass costs more than the sweeps it spares (H200, whole calls, medians of 9,
    #: 4 / 16 / 32 passes: chains of 1,000 cycles of 1,000 vertices numbered along them
    #: 11.7 (the racing host's labels) / 7.9 / 7.6 ms, of 3,000 x 300 4.65 / 3.26 / 3.27,
    #: of 10,000 x 100 3.09 / 2.47 / 3.06; cnr-2000 2.99 / 2.83 / 2.72; the swept 128^3
    #: mesh 34.1 / 36.8 / 40.1 and 64^3 mesh 5.80 / 5.83 / 6.39; shuffled chains, randomly
    #: oriented grids, Kronecker 20, soc-Slashdot0902, uk-2007-05@100000, cit-HepTh within
    #: 3%).
    scc_local_passes = 16
    #: The signature sweeps relax runs of arcs that follow each other (``relax_runs`` in
    #: ``kernels/scc.cu``: a value crosses a run within a warp's 32 arcs in one pass) on a
    #: graph where more than this share of the rows end with an arc to the next id
    #: (:func:`next_id_share`): paths and cycles numbered along themselves, where values
    #: crossed one arc a pass against the id order. Elsewhere each arc alone: the runs'
    #: scans cost a swept mesh a tenth (H200, whole calls, two alternations, runs on every
    #: graph against none: the swept 128^3 mesh 40.6 / 42.8 against 37.4 / 38.4 ms,
    #: cit-HepTh 1.89 / 1.88 against 1.75 / 1.71; a chain of 1,000 cycles of 1,000
    #: vertices numbered along them 2.20 / 2.34 against 7.70 / 7.73 ms, of 3,000 x 300
    #: 1.87 / 1.94 against 3.84 / 3.34).
    scc_run_share = 0.5
    #: The pivot's component (:meth:`scc_pivot_component`), then one trim, then the
    #: signatures, on every graph: the step gives the searches up where they would not pay.
    scc_seed_phases = "pivot"
    #: Graphs of at most this many vertices plus stored arcs are labelled on the host.
    scc_host_items = 1 << 15
    #: A signature round hands its rest to the host after this share of the time the host
    #: would take for everything the round started with: 4 ns per vertex and arc. The
    #: first round of a swept 128^3 mesh took 23 ms, 2.6 ns per item, before labelling
    #: most of it in the next rounds (``bench/scc_notes.md``) ...
    scc_host_share = 0.25
    #: ... or after this many sweeps (None: no limit).
    scc_handoff_sweeps = None
    #: On a graph without hubs of more than :attr:`scc_host_items` and at most this many
    #: vertices plus arcs, the signatures race the host's Tarjan on the whole graph
    #: (:mod:`.scc_race`): a round past its budget sweeps on instead of handing its rest
    #: over. Larger graphs hand over: the host's time grows with the graph.
    scc_race_items = 1 << 22
    #: The pivot's searches (:meth:`scc_pivot_component`) run on graphs of more than this
    #: many vertices plus arcs. On smaller ones a search's levels (tens of µs each, bound
    #: by latency) cost more than the signature sweeps they spare, and the steps after
    #: them cost what they cost anyway (H200, whole calls, against one trim first:
    #: cnr-2000, 3.5M items, 4.89 against 3.59 ms; soc-Slashdot0902 2.41 against 1.58;
    #: uniform random, 4.2M vertices, 8.4M arcs, 4.26 against 4.32; directed Kronecker 20,
    #: 17M items, 1.70 against 2.20).
    scc_pivot_items = 1 << 23
    #: The pivot's searches each stop after this many levels, and the component is then
    #: left to the trim and the signatures: a search deeper than that crosses a grid, a
    #: mesh, a road map or a chain of components, where the signatures label the pivot's
    #: component in the same sweeps as the rest.
    scc_pivot_levels = 64
    #: The backward search runs only where the forward one reached at least this share of
    #: the active vertices: the component lies inside what the forward search reached.
    scc_pivot_share = 1 / 64
    _scc_counts = None
    _race: Race | None = None      # the race of the strong_components call running

    def strong_components(self, G) -> GpuVector:
        """The labels of :meth:`Executor.strong_components
        <lagraph_py.executor.Executor.strong_components>`: the algorithm text's steps
        below, or the host's for a small graph (:mod:`.host_handover`)."""
        if host_handover.on_host(self, G):
            return host_handover.strong_components(G)
        self._race = self._start_race(self.matrix(G, loops=False),
                                      self.matrix(G, transpose=True, loops=False))
        self._scc_counts = dict(raced=self._race is not None)
        try:
            return super().strong_components(G)
        finally:
            if self._race is not None:
                self._race.call_off()
            self._race = None

    def _start_race(self, A, AT) -> Race | None:
        """The race of :mod:`.scc_race`, its host side started, on a graph without hubs of
        more than :attr:`scc_host_items` and at most :attr:`scc_race_items` vertices plus
        arcs; else None. It starts before the first step: the host's Tarjan labels the
        whole graph whatever the steps before the signatures remove."""
        if not (self.scc_host_items < A.n + A.nstored <= self.scc_race_items
                and hub_free(A, AT)):
            return None
        race = Race(*A.host_csr())
        race.start_host()
        return race

    def scc_trim(self, A, AT, active, label) -> GpuVector:
        n, idx = A.n, A.index_dtype
        if A.n + A.nstored <= self.scc_host_items:
            return self._host_trim(A, AT, active, label)
        ensure_fits(trim_working_set(n, idx), "scc_trim")
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
        (acv, aclo), (tcv, tclo) = long_row_chunks(A), long_row_chunks(AT)
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

    def scc_pivot_component(self, G, A, AT, active, label) -> GpuVector:
        """:meth:`Executor.scc_pivot_component
        <lagraph_py.executor.Executor.scc_pivot_component>` by two launches of the BFS
        ``search`` kernel (levels only, pull lists in storage order, one scratch for
        both): forward from the pivot along ``A``, then backward along ``AT``. The
        searches run on the whole graph: what ``active`` leaves out is a union of whole
        components other than the pivot's, so the vertices both reach are the pivot's
        component all the same; one more launch (``scc_pivot_label``) labels it, takes it
        out of ``active`` in place and lists the active vertices left (the queue the trim
        reads next), unless the backward search stopped short. It labels nothing (and
        returns ``active`` as it is) on a graph of at most :attr:`scc_pivot_items`
        vertices plus arcs, where the free device memory does not hold its working set
        (:func:`pivot_working_set`: the call's plan does not count it, so that the pivot
        never makes a call refused or out of core that would run without it), where a
        search would pass :attr:`scc_pivot_levels` levels, or where the forward one
        reaches fewer than :attr:`scc_pivot_share` of the active vertices. Two syncs, for
        the forward search's counts and the labelling's, and one for the pivot where not
        every vertex is active (else it is kept with ``G``).

        Out of core (either adjacency in managed memory) the searches push every level
        and their scratch is freed with the call: a pull level would reread, across the
        host link, the in-lists of every vertex it does not reach (directed Kronecker 24
        at a quarter cap, H200: 7.5 s with pulls), and the trim and the signatures after
        the step need the room. Pushing, the searches took that call to 126-158 ms from
        593-712 ms without them (the signatures swept all 263M arcs across the link);
        the same call resident 8.4 ms."""
        n = A.n
        nactive = active.nvals()
        if n + A.nstored <= max(self.scc_host_items, self.scc_pivot_items) or nactive == 0:
            return active
        key = f"gpu.scc.pivot_plans.{cp.cuda.get_current_stream().ptr}"
        managed = in_managed_memory(A.indices) or in_managed_memory(AT.indices)
        need = pivot_working_set(n, A.index_dtype, key in G._cache)
        if need > free_bytes(need):
            return active
        pivot = (G._cached("gpu.scc.pivot", lambda: self._pivot(G, active)) if nactive == n
                 else self._pivot(G, active))
        if managed:                     # push only; the scratch freed with the call
            forward, backward, words = self._pivot_plans(A, AT, pulls=False)
        else:
            forward, backward, words = G._cached(key, lambda: self._pivot_plans(A, AT))
        out = streamed_alloc(16 * n)
        fw, bw = out.ptr, out.ptr + 8 * n
        self._launch_search(forward, pivot, fw, 0, self.scc_pivot_levels)   # (no parents)
        left, reached = (int(x) for x in forward.outcome.get())              # sync
        if left or reached + 1 < self.scc_pivot_share * nactive:
            return active
        self._launch_search(backward, pivot, bw, 0, self.scc_pivot_levels)
        lv, lp = label.for_update()
        idx = A.index_dtype
        queue = cp.empty(nactive, dtype=idx)
        _module.launch_resident(
            _module.kernel("scc_pivot_label", idx), words.size - 3, _BLOCK,
            (fw, bw, n, backward.outcome, lv, lp, active.present, queue, words,
             self._barrier()))
        nleft, left = (int(x) for x in words[1:3].get())                   # sync
        if left:
            return active
        label.touched()
        active.touched()
        active._queue, active._nvals = queue[:nleft], nleft
        return active

    def _pivot(self, G, active) -> int:
        """The pivot: the active vertex of largest in-degree x out-degree, the smallest id
        on a tie; from the host's degrees of ``G``, so that nothing stays on the device
        (out of core, the budget has no room to spare: the steps after the pivot's
        scratch use the same room)."""
        score = G.out_degree() * G.in_degree()
        if active.nvals() < active.size:
            score[~active.present.get()] = -1                   # sync
        return int(np.argmax(score))

    def _pivot_plans(self, A, AT, pulls: bool = True
                     ) -> tuple[SearchPlan, SearchPlan, cp.ndarray]:
        """The plans of :meth:`scc_pivot_component`'s searches, forward along ``A`` and
        backward along ``AT``, sharing one scratch, and the words that ``scc_pivot_label``
        writes (the component's smallest id, the count of vertices left, whether the
        backward search stopped short, then a count for each of its blocks); ``pulls``:
        whether their levels may pull (:class:`SearchPlan`)."""
        forward = SearchPlan(self, A, AT, hub_first=False, packed=False, pulls=pulls)
        blocks = _module.resident_blocks(_module.kernel("scc_pivot_label", A.index_dtype),
                                         _module.grid_for(A.n, _BLOCK), _BLOCK)
        return (forward, SearchPlan(self, AT, A, hub_first=False, packed=False,
                                     scratch_of=forward, pulls=pulls),
                cp.empty(3 + blocks, dtype=np.uint64))

    def scc_signatures(self, A, AT, active, label) -> None:
        race = self._race
        if race is not None and race.host_finished():     # before the launch: no kernel
            self._scc_counts = dict(self._scc_counts or {}, signature_words=None,
                                    handed_over=active.nvals())
        elif A.n + A.nstored <= self.scc_host_items:
            ids = _host_ids(active)
            self._scc_counts = dict(self._scc_counts or {}, signature_words=None,
                                    handed_over=ids.size)
            self._host_labels(A, ids, label)
            return
        elif not self._signature_kernel(A, active, label, race):
            return
        if race is not None:                     # every vertex takes the host's label
            label.stage_host(race.host_labels(), -1, nvals=A.n)

    def _signature_kernel(self, A, active, label, race: Race | None) -> int:
        """The signatures of the active vertices by ``scc_signatures_fused``; the number
        of vertices it handed over, which the host labels here where no ``race`` runs."""
        n, idx = A.n, A.index_dtype
        q = active.queue(idx)                                    # sync (size)
        if q.size == 0:
            return 0
        start = cp.zeros(q.size + 1, dtype=np.int64)             # each row's first arc
        cp.cumsum(A.indptr[q + 1] - A.indptr[q], out=start[1:])
        m = int(start[-1])                                       # sync (arcs)
        ensure_fits(signatures_working_set(n, m, q.size, idx), "scc_signatures")
        pair = 2 * np.dtype(idx).itemsize
        arcs = cp.empty((m, 2), dtype=idx)
        if m:
            g = _group_size(m, q.size)
            acv, aclo = long_row_chunks(A)
            _module.kernel("scc_gather_edges", idx)(
                (_module.grid_for(q.size * g, _BLOCK),), (_BLOCK,),
                (A.indptr, A.indices, active.present, q, q.size, start, np.int32(g), acv, aclo,
                 acv.size, arcs))
        sig = cp.empty((n, 2), dtype=idx)
        words = cp.zeros(6 + 3 + 3 * LOG_ROUNDS, dtype=np.uint64)
        ctl, out = words[:6], words[6:]
        kernel = _module.kernel("scc_signatures_fused", idx,
                                next_id_share(A) > self.scc_run_share)
        blocks = _module.resident_blocks(
            kernel, min(_MAX_BLOCKS, _module.grid_for(max(m, q.size), _BLOCK)), _BLOCK)
        part = cp.empty(blocks, dtype=np.uint64)
        lists = (q.copy(), cp.empty_like(q))
        sweeps = self.scc_handoff_sweeps
        lv, lp = label.for_update()
        _module.launch_resident(
            kernel, blocks, _BLOCK,
            (*lists, q.size, arcs, m, sig, lv, lp, np.int32(self.scc_local_passes),
             _module.l2_bytes() // pair, float(self.scc_host_share * HOST_NS_PER_ITEM),
             _NEVER if sweeps is None else int(sweeps),
             0 if race is None else race.stop_pointer, part, ctl, self._barrier(), out))
        label.touched()
        if race is not None:                     # the caller sleeps beside the host
            done = cp.cuda.Event(block=True, disable_timing=True)
            done.record()
            done.synchronize()
        rounds, _, left = (int(x) for x in out[:3].get())       # sync
        self._scc_counts = dict(self._scc_counts or {}, signature_words=out,
                                handed_over=left)
        if left and race is None:                # the rest's ids, ascending, to the host
            device_ids = cp.sort(lists[rounds % 2][:left])
            self._host_labels(A, device_ids.get(), label, device_ids)     # sync
        return left

    def _host_trim(self, A, AT, active, label) -> GpuVector:
        """:meth:`scc_trim` by the host's peeling queue; returns the rest as a vector made
        on the device when first read, its ids kept on the host."""
        from lagraph_py.cpu import as_unsigned
        from lagraph_py.cpu_steps.scc import _peel
        n = A.n
        removed, kept = _peel(*as_unsigned(*A.host_csr()), *as_unsigned(*AT.host_csr()),
                              _host_ids(active), n)
        _host_set(label, removed, removed, A.index_dtype)
        self._scc_counts = dict(self._scc_counts or {}, trim_levels=None)
        kept = kept.astype(np.int64)

        def build():
            idx = cp.asarray(kept)
            values, present = cp.empty(n, dtype=np.int64), cp.zeros(n, dtype=bool)
            values[idx] = idx
            present[idx] = True
            return values, present

        rest = GpuVector(n, lazy=build, nvals=kept.size)
        rest._host_queue = kept
        return rest

    def _host_labels(self, A, ids, label, device_ids=None) -> None:
        """Label the vertices ``ids`` (host, ascending: a union of whole components) by the
        host's Tarjan on the subgraph they induce in ``A``; ``device_ids``: the same ids
        on the device, if they are there."""
        from lagraph_py.cpu_steps.scc import smallest_id_components
        if ids.size:
            smallest = smallest_id_components(*A.host_csr(), ids.astype(np.uint64), A.n)
            _host_set(label, ids, smallest, A.index_dtype, device_ids)

    def scc_counts(self) -> dict:
        """Counts of the last fused SCC steps: ``trim_levels`` (peeling levels of the last
        trim; None on the host), ``signature_rounds`` and ``signature_sweeps`` (of the last
        :meth:`scc_signatures` on the device), ``handed_over`` (vertices it left to the
        host's Tarjan: all it was given where a racing host had finished before its
        launch), ``raced`` (whether the call raced the host's Tarjan on the whole graph
        against the device's steps, :mod:`.scc_race`) and ``round_log`` (for each of its first
        ``LOG_ROUNDS`` rounds: the sweeps so far, the vertices left and the milliseconds
        since its start). Reading the device's words is a sync."""
        counts = dict(self._scc_counts or {})
        words = counts.pop("signature_words", None)
        if words is not None:
            w = words.get()                                      # sync
            counts["signature_rounds"], counts["signature_sweeps"] = int(w[0]), int(w[1])
            log = w[3:3 + 3 * min(int(w[0]), LOG_ROUNDS)].reshape(-1, 3)
            counts["round_log"] = [(int(a), int(b), round(c / 1e6, 3)) for a, b, c in log]
        return counts


def _host_ids(active) -> np.ndarray:
    """The present indices of ``active`` on the host, ascending, as uint64 (the compiled
    loops' type): a copy from the device unless known (every index, or a host list kept
    with the vector)."""
    if active.nvals() == active.size:
        return np.arange(active.size, dtype=np.uint64)
    if active._host_queue is not None:
        return active._host_queue.astype(np.uint64)
    return active.queue().get().astype(np.uint64)               # sync


def _host_set(label, ids, values, index_dtype, device_ids=None) -> None:
    """``label(ids[i]) = values[i]`` for host arrays (``values`` never -1): into the host
    values that ``label`` stages while it holds nothing else (a small graph's labels, then
    copied in one piece when first read: :meth:`GpuVector.stage_host`), else on the device
    by one launch after one copy (of the values alone where ``device_ids`` holds the ids
    there)."""
    if ids.size == 0:
        return
    staged = label.staged_host()
    if staged is None and label._nvals == 0:
        staged = np.full(label.size, -1, dtype=np.int64)
    if staged is not None:
        staged[ids] = values
        label.stage_host(staged, -1)
        return
    if device_ids is None:
        both = cp.asarray(np.concatenate((ids.astype(index_dtype), values.astype(index_dtype))))
        device_ids, device_values = both[:ids.size], both[ids.size:]
    else:
        device_values = cp.asarray(values.astype(index_dtype))
    lv, lp = label.for_update()
    _module.kernel("scc_set_labels", index_dtype)(
        (_module.grid_for(ids.size, _BLOCK),), (_BLOCK,),
        (device_ids, device_values, ids.size, lv, lp))
    label.touched()

