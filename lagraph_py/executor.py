"""The step vocabulary that every algorithm is written in.

An algorithm (``lagraph_py/algorithms/*.py``) is a short loop of the steps below; an
executor implements them on one kind of hardware. The steps are GraphBLAS operations on
opaque *vectors* (sparse: a set of present indices, each with a value) and on adjacency
*matrices* (the pattern of a :class:`~lagraph_py.Graph`). All masks are structural: an
entry of the mask is "true" when present, whatever its value. ``docs/executor.md`` holds
the table of steps with their cpu and gpu implementations.

Group steps (:meth:`Executor.bfs_search`, :meth:`Executor.bfs_level`,
:meth:`Executor.bfs_push_levels`, :meth:`Executor.bfs_pull_levels`,
:meth:`Executor.spanning_forest`,
:meth:`Executor.connected_components`, :meth:`Executor.strong_components`,
:meth:`Executor.scc_trim`, :meth:`Executor.scc_pivot_component`,
:meth:`Executor.scc_signatures`) are defined here by their
primitive steps; an executor may replace one with fused code (a kernel, a compiled loop),
provided the result is the same. The algorithm text never changes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from contextlib import nullcontext
from typing import Any, NamedTuple

import numpy as np

from .registry import get_executor  # noqa: F401  (re-exported: its former home)

#: Semirings the algorithms use: ``<add monoid>_<multiply op>``. The multiply op sees its
#: operands in GraphBLAS order: in ``w = u ⊕.⊗ A`` (vxm) ``first`` is the vector entry
#: ``u(k)`` and ``second`` the matrix entry; in ``w = A ⊕.⊗ u`` (mxv) ``first`` is the matrix
#: entry and ``second`` is ``u(k)``. Patterns hold 1, so a label travels by ``*_first``
#: under vxm and ``*_second`` under mxv. ``secondi`` is the index ``k`` of the vector entry
#: in both (the parent in BFS); ``pair`` is 1.
SEMIRINGS = ("any_secondi", "any_pair", "plus_pair", "min_first", "max_first",
             "min_second", "max_second")

#: Binary operators for :meth:`Executor.ewise_add`, :meth:`Executor.ewise_mult` and
#: :meth:`Executor.apply`; comparisons give 1/0 as int64.
BINARY_OPS = ("min", "max", "plus", "minus", "times", "first", "second",
              "eq", "ne", "lt", "le", "gt", "ge")

#: Predicates for :meth:`Executor.select`: keep ``u(i)`` when ``u(i) <op> thunk``.
SELECT_OPS = ("eq", "ne", "lt", "le", "gt", "ge")

#: Monoids for :meth:`Executor.reduce` and :meth:`Executor.scatter`.
MONOIDS = ("min", "max", "plus", "any")

PUSH, PULL = "push", "pull"


def monoid_identity(monoid: str, dtype):
    """The identity of ``monoid`` ("min", "max" or "plus") for int64 or float64 values."""
    dtype = np.dtype(dtype)
    if monoid == "plus":
        return dtype.type(0)
    if monoid not in ("min", "max"):
        raise ValueError(f"unknown monoid {monoid!r}")
    if dtype.kind == "f":
        return dtype.type(np.inf if monoid == "min" else -np.inf)
    info = np.iinfo(dtype)
    return dtype.type(info.max if monoid == "min" else info.min)


class LevelStats(NamedTuple):
    """What the BFS direction rule needs to know after a step (one host sync on a gpu)."""

    nq: int                 #: vertices in the new frontier
    frontier_edges: int     #: out-edges of the new frontier
    visited_in_edges: int   #: in-edges of every vertex the step visited


class Executor(ABC):
    """One implementation of the step vocabulary.

    Vectors are executor-native and opaque to algorithms: build them with
    :meth:`vector`, :meth:`full` or :meth:`iota`, combine them with the algebra steps
    and read them back with :meth:`nvals`, :meth:`to_coo` or :meth:`to_dense`.
    Values are int64 unless built from float64 data.
    """

    #: Name used by ``backend=``.
    name: str = ""
    #: BFS level implementations that :meth:`bfs_level` accepts (user ``method=``).
    bfs_methods: tuple[str, ...] = (PUSH, PULL)
    #: The two :attr:`bfs_methods` that ``method="auto"`` switches between.
    auto_methods: dict[str, str] = {PUSH: PUSH, PULL: PULL}
    #: Largest frontier (vertices) that :meth:`bfs_push_levels` is used for; 0 = never.
    small_frontier: int = 0
    #: What the SCC text runs before :meth:`scc_signatures` (see
    #: :mod:`lagraph_py.algorithms.scc`): ``"forward_backward"``, on graphs with hubs only,
    #: trim, a forward-backward search from the largest hub, trim, 2-cycles (pays where
    #: ``scc_signatures`` is slow on a giant component: the primitive rounds); ``"trim"``,
    #: one trim on every graph (an executor whose ``scc_signatures`` settles a power-law
    #: graph in a round or two); ``"pivot"``, on every graph a forward-backward search
    #: from the largest hub, which the executor may give up where it would not pay
    #: (:meth:`scc_pivot_component`), then one trim.
    scc_seed_phases: str = "forward_backward"
    #: Which of the host estimates of :mod:`lagraph_py.memory` the algorithms check before
    #: running on this executor (``"compiled"``, ``"scipy"``, ``"reference"``); None for
    #: an executor whose working set lives on a device, which checks its own.
    memory_path: str | None = None

    # ---------------------------------------------------------------- placement
    def placement(self, G, task: str):
        """A context around one call of ``task`` (``"bfs"``, ``"msf"``, ``"scc"``,
        ``"cc"``) on ``G``, entered by the algorithms before any step: where the executor
        plans the call's memory, and refuses up front (``MemoryError``) what cannot run.
        Nothing to plan here; the gpu executor places a graph larger than its budget out
        of core (``gpu_backend.GpuExecutor.placement``)."""
        return nullcontext()

    # ---------------------------------------------------------------- storage
    @abstractmethod
    def matrix(self, G, *, transpose: bool = False, loops: bool = True) -> Any:
        """The adjacency pattern of ``G`` (or its transpose; without self-loops if
        ``loops=False``), built once per graph and cached on it."""

    @abstractmethod
    def degree(self, G, *, incoming: bool = False) -> Any:
        """A full vector of out-degrees (in-degrees if ``incoming``) of ``G``, cached on it."""

    @abstractmethod
    def array(self, values: np.ndarray) -> Any:
        """An executor array (numpy or CuPy) holding a copy of host ``values``."""

    @abstractmethod
    def vector(self, size: int, indices, values) -> Any:
        """A vector with ``values[k]`` at ``indices[k]`` (host or executor arrays, or scalars
        for ``values``); indices must be distinct."""

    @abstractmethod
    def full(self, size: int, value) -> Any:
        """A vector with every index present, all holding ``value``."""

    @abstractmethod
    def iota(self, size: int) -> Any:
        """A full vector with ``v(i) = i``."""

    @abstractmethod
    def dup(self, u) -> Any:
        """An independent copy of ``u``."""

    # ---------------------------------------------------------------- reading back
    @abstractmethod
    def nvals(self, u) -> int:
        """Number of present entries (a device-to-host synchronization on the gpu)."""

    @abstractmethod
    def to_coo(self, u) -> tuple[Any, Any]:
        """Executor arrays ``(indices, values)`` of the present entries, indices ascending."""

    @abstractmethod
    def to_dense(self, u, fill, *, consume: bool = False) -> Any:
        """A dense executor array of ``u``'s values with ``fill`` where absent.

        With ``consume=True`` the caller gives ``u`` up: the executor may hand back ``u``'s
        own storage, and ``u`` must not be used again.
        """

    # ---------------------------------------------------------------- algebra
    @abstractmethod
    def vxm(self, u, A, semiring: str, *, mask=None, complement: bool = False) -> Any:
        """``w<mask> = u ⊕.⊗ A``: push from the entries of ``u`` along rows of ``A``.

        With ``complement=True`` the output keeps only indices *absent* from ``mask``.
        """

    @abstractmethod
    def mxv(self, A, u, semiring: str, *, mask=None, complement: bool = False) -> Any:
        """``w<mask> = A ⊕.⊗ u``: each output row ``i`` pulls from the entries ``u(k)``
        with ``A(i, k)`` present; an ``any_*`` semiring may stop at the first hit."""

    @abstractmethod
    def ewise_add(self, u, v, op: str) -> Any:
        """Union: ``op(u(i), v(i))`` where both are present, else the one present."""

    @abstractmethod
    def ewise_mult(self, u, v, op: str) -> Any:
        """Intersection: ``op(u(i), v(i))`` where both are present."""

    @abstractmethod
    def apply(self, u, op: str, right=None) -> Any:
        """``op(u(i), right)`` for a binary op and scalar ``right``, or with ``op="index"``
        the index ``i`` itself, on the structure of ``u``."""

    @abstractmethod
    def select(self, u, op: str, thunk) -> Any:
        """The entries of ``u`` with ``u(i) <op> thunk``."""

    @abstractmethod
    def mask(self, u, mask, *, complement: bool = False) -> Any:
        """The entries of ``u`` whose index is present in ``mask`` (absent if complemented)."""

    @abstractmethod
    def assign(self, w, u, *, mask=None) -> None:
        """In place: ``w(i) = u(i)`` for every entry of ``u`` (restricted to ``mask``)."""

    @abstractmethod
    def assign_scalar(self, w, value, *, mask) -> None:
        """In place: ``w(i) = value`` for every index present in ``mask``."""

    @abstractmethod
    def reduce(self, u, monoid: str):
        """``⊕`` of all present values as a Python scalar, or None if ``u`` is empty."""

    @abstractmethod
    def extract(self, table, index) -> Any:
        """Gather: ``w(k) = table(index(k))`` on the entries of ``index`` whose value is
        present in ``table``."""

    @abstractmethod
    def scatter(self, size: int, index, values, monoid: str) -> Any:
        """Scatter-reduce: ``w(i) = ⊕ {values(k) : index(k) == i}`` over the entries
        present in both ``index`` and ``values``."""

    @abstractmethod
    def select_edges(self, M, labels) -> Any:
        """The entries ``M(i, j)`` with ``labels(i) == labels(j)``, both present: a matrix
        of the same kind as ``M`` (the edges inside one class of a vertex partition)."""

    # ---------------------------------------------------------------- group steps
    def bfs_search(self, G, source: int, method: str, levels: bool,
                   parents: bool) -> tuple[Any, Any]:
        """A whole breadth-first search of ``G`` from ``source``: executor arrays
        ``(level, parent)``, ``-1`` where unreached and None where not asked for, as
        :func:`lagraph_py.bfs` returns them (``method`` among ``"auto"`` and
        :attr:`bfs_methods`).

        Defined by the text of :mod:`lagraph_py.algorithms.bfs`
        (:func:`~lagraph_py.algorithms.bfs.search`): the BFS group steps below, with the
        direction rule deciding between them. An executor may replace the whole with fused
        code where the steps cost more than a small search's work, provided the levels are
        the same and the parents form a BFS tree.
        """
        from .algorithms.bfs import search
        return search(self, G, source, method, levels, parents)

    def bfs_level(self, A, AT, frontier, parent, level, k: int, method: str, semiring: str,
                  degrees=None) -> tuple[Any, LevelStats]:
        """Expand one BFS level; return the new frontier and its :class:`LevelStats`.

        Defined as ``q<¬s(parent)> = frontier ⊕.⊗ A`` (push) or
        ``q<¬s(parent)> = AT ⊕.⊗ frontier`` (pull), then ``parent<s(q)> = q`` and
        ``level<s(q)> = k`` (``level`` may be None). ``parent`` is the visited set; its
        values are parents with ``semiring="any_secondi"``. ``degrees`` is
        ``(out_degree, in_degree)`` vectors from :meth:`degree`, or None to skip the edge
        counts. An executor accepts the methods in :attr:`bfs_methods`.
        """
        if method == PUSH:
            q = self.vxm(frontier, A, semiring, mask=parent, complement=True)
        elif method == PULL:
            q = self.mxv(AT, frontier, semiring, mask=parent, complement=True)
        else:
            raise ValueError(f"the {self.name} executor has no BFS method {method!r}")
        self.assign(parent, q)
        if level is not None:
            self.assign_scalar(level, k, mask=q)
        return q, self._level_stats(q, q, degrees)

    def bfs_push_levels(self, A, frontier, parent, level, k: int, semiring: str, limit: int,
                        degrees=None) -> tuple[Any, int, LevelStats]:
        """Run push levels ``k, k+1, ...`` while the frontier is non-empty and holds at
        most ``limit`` vertices; return ``(frontier, last level run, stats)``.

        ``stats.visited_in_edges`` sums over every vertex these levels visited. An
        executor may run the levels inside one kernel launch (see :attr:`small_frontier`).
        """
        start = self.dup(parent) if degrees is not None else None
        nq, k = self.nvals(frontier), k - 1
        while 0 < nq <= limit:
            k += 1
            frontier, stats = self.bfs_level(A, None, frontier, parent, level, k, PUSH,
                                             semiring)
            nq = stats.nq
        new = self.mask(parent, start, complement=True) if degrees is not None else frontier
        return frontier, k, self._level_stats(frontier, new, degrees)

    def bfs_pull_levels(self, A, AT, frontier, parent, level, k: int, semiring: str,
                        min_nq: float, degrees=None) -> tuple[Any, int, LevelStats]:
        """Run pull levels ``k, k+1, ...`` (the ``auto_methods`` pull) until the frontier is
        empty, or is no larger than the one before it and holds fewer than ``min_nq``
        vertices; return ``(frontier, last level run, stats)``.

        ``stats.visited_in_edges`` sums over every vertex these levels visited. An
        executor may run the levels inside one kernel launch.
        """
        nq, vin = self.nvals(frontier), 0
        while True:
            frontier, stats = self.bfs_level(A, AT, frontier, parent, level, k,
                                             self.auto_methods[PULL], semiring, degrees)
            vin += stats.visited_in_edges
            if stats.nq == 0 or (stats.nq <= nq and stats.nq < min_nq):
                return frontier, k, stats._replace(visited_in_edges=vin)
            nq, k = stats.nq, k + 1

    def spanning_forest(self, G) -> tuple[Any, Any, Any, Any]:
        """The minimum spanning forest of the undirected graph ``G``: executor arrays
        ``(src, dst, weight, component)``.

        One row per forest edge, ``src < dst``, rows in the strict order (weight, src, dst)
        that makes the forest unique; ``weight`` as ``G``'s weights (int64 ones when
        unweighted); ``component[v]`` the smallest vertex id of the tree of ``v``.

        Defined by the Filter-Borůvka text of :mod:`lagraph_py.algorithms.msf`
        (:func:`~lagraph_py.algorithms.msf.boruvka_forest`): rank chunks, Borůvka rounds
        and pointer jumping in the primitive steps above. An executor may replace the whole
        with fused code that returns the same forest.
        """
        from .algorithms.msf import boruvka_forest
        return boruvka_forest(self, G)

    def connected_components(self, A, n: int) -> Any:
        """A full vector: the smallest vertex id of the connected component of each of the
        ``n`` vertices of the undirected adjacency ``A``.

        Defined by FastSV in :mod:`lagraph_py.algorithms.scc` (``fastsv``): hooking and
        shortcutting in the primitive steps above.
        """
        from .algorithms.scc import fastsv
        return fastsv(self, A, n)

    def strong_components(self, G) -> Any:
        """A full vector: the smallest vertex id of the strongly connected component of
        each vertex of the directed graph ``G``.

        Defined by the text of :mod:`lagraph_py.algorithms.scc`
        (:func:`~lagraph_py.algorithms.scc.strong_components`): the seed phases that
        :attr:`scc_seed_phases` names, then :meth:`scc_signatures`, in the steps above. An
        executor may replace the whole with fused code giving the same labels.
        """
        from .algorithms.scc import strong_components
        return strong_components(self, G)

    def scc_trim(self, A, AT, active, label) -> Any:
        """Label every vertex of ``active`` that has no active in- or out-neighbour by its
        own id, repeatedly, and return the vertices left (values: own ids).

        ``A``, ``AT``, ``active`` and ``label`` as in :meth:`scc_signatures`. Defined by
        the trim rounds of :mod:`lagraph_py.algorithms.scc` (``trim``).
        """
        from .algorithms.scc import trim
        return trim(self, A, AT, active, label)

    def scc_pivot_component(self, G, A, AT, active, label) -> Any:
        """Label the strongly connected component of the pivot, the active vertex of
        largest in-degree x out-degree in ``G`` (smallest id on a tie), with its smallest
        id, and return the active vertices left (values: own ids); ``active`` is consumed
        (what is returned may be it, changed in place).

        ``A``, ``AT``, ``active`` and ``label`` as in :meth:`scc_signatures`. Defined by
        the forward and backward searches of :mod:`lagraph_py.algorithms.scc`
        (``forward_backward``). An executor may instead label nothing and return
        ``active`` as it is, where it judges that the searches would not pay.
        """
        from .algorithms.scc import forward_backward
        return forward_backward(self, G, A, AT, active, label)

    def scc_signatures(self, A, AT, active, label) -> None:
        """Label, in place in ``label``, every vertex of ``active`` with the smallest id of
        its strongly connected component.

        ``A`` and ``AT`` are the loop-free adjacency and its transpose; ``active`` (values:
        own ids) is a union of whole components, and only the subgraph it induces is
        looked at. Defined by the signature rounds of :mod:`lagraph_py.algorithms.scc`
        (:func:`~lagraph_py.algorithms.scc.signature_rounds`) in the primitive steps above;
        an executor may replace the whole with fused code giving the same labels.
        """
        from .algorithms.scc import signature_rounds
        signature_rounds(self, A, AT, active, label)

    def _level_stats(self, frontier, new, degrees) -> LevelStats:
        nq = self.nvals(frontier)
        if degrees is None or nq == 0:
            return LevelStats(nq, 0, 0)
        out_deg, in_deg = degrees
        return LevelStats(nq, self.reduce(self.mask(out_deg, frontier), "plus"),
                          self.reduce(self.mask(in_deg, new), "plus") or 0)
