"""Mutation testing: does each of a fixed list of realistic bugs make a test fail?

Each mutation below is one bug a careful reviewer could write (a flipped comparison, a
wrong semiring, an off-by-one level, a missed rule in a validator), given as edits of exact
snippets of the source, with the tests that must catch it. The tool copies the working tree
(tracked and untracked, not ignored files) into a scratch folder, runs the covering tests of
every selected mutation there once, unmutated (they must pass, or a failure would prove
nothing), then, one mutation at a time, applies its edits to a fresh copy and runs only its
covering tests, once per hypothesis seed::

    python tools/mutants.py                 # every mutation, seeds 0 and 1 (minutes)
    python tools/mutants.py --list          # the list, and which no longer apply
    python tools/mutants.py --only msf-empty-chunk-break --seeds 3 4 5

A mutation is *killed* when its tests fail on every seed (the table names the first test
that failed on each), *survived* when they pass on some seed: then the suite lacks a test
that checks what the mutation breaks. It is *stale* when a snippet is no longer found
exactly once (the code moved on: refresh the snippet, never drop the mutation silently),
and *skipped* when its tests are the gpu executor's and CuPy or a CUDA device is missing.

Numba caches its compiled loops in ``__pycache__`` beside each source, keyed by the
source's content, but a loop that inlines a helper from another file keeps the old helper.
So a mutant starts from the caches the unmutated run left, less those of the mutated
files and of the compiled loops that import from them.

Exit status: 0 when every mutation that ran was killed; 1 when one survived, was stale or
could not be judged (no test selected, pytest broke); 2 when the unmutated tree fails its
own covering tests.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Hypothesis seeds every mutant's tests run with, unless ``--seeds`` says otherwise.
SEEDS = (0, 1)
#: Seconds one pytest run may take (``--timeout``); a mutant that hangs its tests is caught.
TIMEOUT = 600


@dataclass(frozen=True)
class Edit:
    """Replace ``old``, which must occur exactly once in ``path``, with ``new``."""

    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Mutation:
    """A bug: its edits, what it breaks, and the pytest node ids (``k``: a ``-k``
    expression among them) whose tests must fail."""

    name: str
    what: str
    edits: tuple[Edit, ...]
    tests: tuple[str, ...]
    k: str | None = None

    @property
    def gpu(self) -> bool:
        """Whether its tests need a CUDA device (the GPU test files skip without one)."""
        return any(t.startswith("tests/test_gpu_") for t in self.tests)


def _mutation(name, what, path, old, new, tests, k=None, more=()):
    """A :class:`Mutation` of one edit of ``path`` (``more``: further edits)."""
    return Mutation(name, what, (Edit(path, old, new), *more), tuple(tests), k)


BFS, MSF, SCC = "tests/test_bfs.py", "tests/test_msf.py", "tests/test_scc.py"
MEMORY, CSR = "tests/test_memory.py", "lagraph_py/cpu_steps/csr.py"
GRAPH, IO, VALIDATE = "tests/test_graph.py", "tests/test_io.py", "tests/test_validate.py"
FUSED_BFS = "lagraph_py/cpu_steps/bfs.py"
BFS_PARENT_EDGE = "has_parent_edge[cols[parent[cols] == rows]] = True"

MUTATIONS = (
    # ------------------------------------------------------------------ BFS
    _mutation(
        "bfs-fused-push-parent+validator",
        "fused push takes the frontier's last vertex as every parent, and validate.bfs "
        "forgets the parent edge rule: only an independent parent check sees it",
        FUSED_BFS,
        "_visit(v, u, k, visited, parents, levels)\n                if reached is None:",
        "_visit(v, order[last - _ONE], k, visited, parents, levels)\n"
        "                if reached is None:",
        [BFS], more=[Edit("lagraph_py/validate.py", BFS_PARENT_EDGE,
                          "has_parent_edge[cols] = True")]),
    _mutation(
        "bfs-fused-branchless-parent",
        "branchless push levels give every vertex of a level the level's first parent",
        FUSED_BFS,
        "_visit(order[i], porder[i], k, visited, parents, levels)",
        "_visit(order[i], porder[end], k, visited, parents, levels)",
        [BFS]),
    _mutation(
        "bfs-fused-push-levels-level",
        "the compiled serial push levels number their first level k, not k + 1",
        FUSED_BFS,
        "        k += 1\n        tail = _push_level(indptr, indices, order, head, end, visited, "
        "parents, levels, k,\n                           branchless, porder)\n",
        "        tail = _push_level(indptr, indices, order, head, end, visited, parents, "
        "levels, k,\n                           branchless, porder)\n        k += 1\n",
        [f"{BFS}::test_fused_cpu_equals_reference_executor",
         f"{BFS}::test_long_diameter_and_power_law_graphs"]),
    _mutation(
        "bfs-fused-pull-head-unchecked",
        "a pull level takes each vertex's head (its in-neighbour of most out-edges) as its "
        "parent without looking whether the head is in the frontier",
        FUSED_BFS,
        "    if front[p >> 6] >> (p & 63) & _ONE:\n        return p, 1\n",
        "    if True:\n        return p, 1\n",
        [f"{BFS}::test_fused_cpu_equals_reference_executor"]),
    _mutation(
        "bfs-fused-second-pull-phase",
        "a pull phase after push levels keeps the vertices those levels visited among the "
        "unvisited, and may visit them again",
        FUSED_BFS,
        "                    todo[v >> 6] &= ~(_ONE << (v & 63))\n",
        "",
        [f"{BFS}::test_direction_changes_back_and_forth"]),
    _mutation(
        "bfs-fused-work-arrays-kept",
        "the work arrays kept with the Graph carry the last search's visited vertices into "
        "the next search",
        FUSED_BFS,
        "    visited[:] = False\n",
        "",
        [f"{BFS}::test_fused_cpu_equals_reference_executor"]),
    _mutation(
        "bfs-fused-parallel-frontier",
        "a parallel push level leaves its byte map set, so the next one lists vertices again",
        FUSED_BFS,
        "                    reached[v] = False\n",
        "",
        [f"{BFS}::test_fused_cpu_equals_reference_executor"], k="parallel"),
    _mutation(
        "bfs-fused-core-queue-dropped",
        "the cores' queues of a push level are joined without the last core's",
        FUSED_BFS,
        "    for c in range(cores):\n        start = nq * c // cores * max_degree",
        "    for c in range(cores - 1):\n        start = nq * c // cores * max_degree",
        [f"{BFS}::test_fused_cpu_equals_reference_executor"], k="queues"),
    _mutation(
        "bfs-reference-level-mask",
        "the reference bfs_level writes level k on the old frontier instead of the new one",
        "lagraph_py/executor.py",
        "self.assign_scalar(level, k, mask=q)",
        "self.assign_scalar(level, k, mask=frontier)",
        [f"{BFS}::test_fused_cpu_equals_reference_executor"]),
    _mutation(
        "bfs-parent-semiring-swapped",
        "the search takes ANY_PAIR (values 1) when parents are asked for",
        "lagraph_py/algorithms/bfs.py",
        'semiring = "any_secondi" if parents else "any_pair"',
        'semiring = "any_pair" if parents else "any_secondi"',
        [f"{BFS}::test_fused_cpu_equals_reference_executor"]),
    _mutation(
        "bfs-switch-to-pull-level",
        "push -> pull switch: the pull levels start at the level just run, not the next",
        "lagraph_py/algorithms/bfs.py",
        "AT, frontier, visited, level, k + 1,",
        "AT, frontier, visited, level, k,",
        [BFS]),
    _mutation(
        "bfs-switch-back-to-push-level",
        "pull -> push switch: the reference pull levels report one level more than they ran",
        "lagraph_py/executor.py",
        "return frontier, k, stats._replace(visited_in_edges=vin)",
        "return frontier, k + 1, stats._replace(visited_in_edges=vin)",
        [BFS]),
    _mutation(
        "source-id-range",
        "a source equal to n is taken for a vertex",
        "lagraph_py/_checks.py",
        "if not 0 <= s < n:",
        "if not 0 <= s <= n:",
        [f"{BFS}::test_bad_arguments"]),
    _mutation(
        "scipy-search-into-copies-nothing",
        "the scipy executor's search into given arrays (the GPU hand-over's, while the cpu "
        "loops compile) searches but leaves the arrays as they were",
        "lagraph_py/scipy_cpu.py",
        "out[...] = values",
        "pass",
        [BFS], k="search_into"),
    _mutation(
        "search-outputs-read-only-taken",
        "a read-only array is taken for a search's output",
        "lagraph_py/_checks.py",
        "and a.flags.writeable):",
        "):",
        [BFS], k="search_into"),
    # ------------------------------------------------------------------ MSF
    _mutation(
        "msf-empty-chunk-break",
        "the reference Borůvka stops at the first rank chunk whose edges all lie inside "
        "trees already found, though a later chunk may hold a bridge",
        "lagraph_py/algorithms/msf.py",
        "if chunk.size == 0:\n                continue",
        "if chunk.size == 0:\n                break",
        [MSF], k="chunk or schedule or extreme or fused_matches"),
    _mutation(
        "msf-chunks-unreached",
        "probe: the schedule tests must reach the rank chunks on every executor they run",
        "lagraph_py/algorithms/msf.py",
        "        m = self.key.size\n        cuts, lo, size",
        "        raise AssertionError('rank chunks reached')\n"
        "        m = self.key.size\n        cuts, lo, size",
        [MSF], k="test_rank_chunk_schedule_does_not_change_the_forest or "
                 "test_extreme_and_neighbouring_weights"),
    _mutation(
        "msf-last-chunk-dropped",
        "rank chunks: the heaviest chunk is never yielded (off by one)",
        "lagraph_py/algorithms/msf.py",
        "for c in range(len(bounds) + 1):",
        "for c in range(len(bounds)):",
        [MSF]),
    _mutation(
        "msf-later-chunks-not-relabelled",
        "a later chunk's endpoints are not relabelled by the components found so far",
        "lagraph_py/algorithms/msf.py",
        "EU, EV = _relabelled(ex, comp if forests else None, eu[edges], ev[edges])",
        "EU, EV = _relabelled(ex, None, eu[edges], ev[edges])",
        [MSF]),
    _mutation(
        "msf-tie-order-negative-zero",
        "rank keys of float weights: -0.0 sorts before 0.0 (ties broken out of order)",
        "lagraph_py/algorithms/msf.py",
        'bits = (w + w.dtype.type(0)).view(f"i{w.itemsize}")',
        'bits = w.view(f"i{w.itemsize}")',
        [MSF]),
    _mutation(
        "msf-fused-tie-order-unstable",
        "the fused step ranks small edge lists by an unstable argsort: ties by weight "
        "alone, not (weight, u, v)",
        "lagraph_py/cpu_steps/msf.py",
        'np.argsort(w, kind="stable") if w.size',
        "np.argsort(w) if w.size",
        [MSF]),
    _mutation(
        "graph-duplicates-keep-heaviest",
        "Graph.from_edges merges parallel edges of one direction by max, not min",
        "lagraph_py/graph.py",
        "dup_op=gb.binary.min)",
        "dup_op=gb.binary.max)",
        [f"{MEMORY}::test_counting_sort_build_equals_suitesparse_build"]),
    _mutation(
        "graph-mirror-keeps-heaviest",
        "an undirected graph keeps the heavier of (u, v) and (v, u)",
        "lagraph_py/graph.py",
        "gb.binary.any if weights is None else gb.binary.min",
        "gb.binary.any if weights is None else gb.binary.max",
        [f"{MEMORY}::test_counting_sort_build_equals_suitesparse_build"]),
    _mutation(
        "csr-duplicates-keep-heaviest",
        "the counting-sort build orders a row's repeats heaviest first, so it keeps the "
        "heaviest",
        CSR,
        "return _order(w, i) < _order(w, j)",
        "return _order(w, i) > _order(w, j)",
        [GRAPH, f"{MSF}::test_parallel_edges_keep_the_lightest"]),
    _mutation(
        "csr-negative-reals-misordered",
        "the build orders real weights by their bits as integers: negative reals backwards",
        CSR,
        "    if x & sign:\n        return ~x\n",
        "",
        [GRAPH, f"{MEMORY}::test_counting_sort_build_equals_suitesparse_build"]),
    _mutation(
        "csr-partition-pivot-misplaced",
        "the build's quicksort puts the pivot at the left scan's stop: long rows unsorted",
        CSR,
        "_swap(indices, w, a, j)          # the pivot at j",
        "_swap(indices, w, a, i)          # the pivot at j",
        [f"{GRAPH}::test_long_rows_sort_and_merge"]),
    _mutation(
        "csr-transpose-rows-backwards",
        "the transpose scans rows last to first: its rows come out in descending order",
        CSR,
        "    for r in range(n):\n        for p in range(indptr[r], indptr[r + 1]):\n"
        "            c = indices[p] + 1",
        "    for r in range(n - 1, -1, -1):\n        for p in range(indptr[r], indptr[r + 1]):"
        "\n            c = indices[p] + 1",
        [f"{MEMORY}::test_transposes_keep_the_layout"]),
    _mutation(
        "layout-offsets-by-vertices",
        "the row pointers' type follows the vertex count, not the stored entries",
        "lagraph_py/_checks.py",
        "return wide[nstored <= INT32_OFFSETS_MAX], wide[n <= INT32_IDS_MAX]",
        "return wide[n <= INT32_OFFSETS_MAX], wide[n <= INT32_IDS_MAX]",
        [f"{MEMORY}::test_every_layout_and_weight_width_gives_the_same_results",
         f"{MEMORY}::test_row_pointers_widen_with_the_stored_entries_not_the_vertices"]),
    _mutation(
        "memory-limit-ignored",
        "the memory check ignores LAGRAPH_PY_MEMORY_LIMIT",
        "lagraph_py/memory.py",
        "for x in (system, limit())",
        "for x in (system,)",
        [MEMORY], k="refuse or ensure or available or reuse"),
    _mutation(
        "memory-reading-reused-whatever-the-share",
        "a memory check reuses a recent reading of the available memory however much of it "
        "the estimate takes",
        "lagraph_py/memory.py",
        " or nbytes > REUSE_SHARE * system:",
        ":",
        [f"{MEMORY}::test_checks_reuse_a_recent_reading_for_small_shares_only"]),
    _mutation(
        "memory-reused-reading-not-spent",
        "a reused reading of the available memory does not count what the checks since "
        "let through",
        "lagraph_py/memory.py",
        "    _spend(nbytes)\n    return True",
        "    return True",
        [f"{MEMORY}::test_a_reused_reading_counts_what_the_checks_let_through"]),
    _mutation(
        "memory-reading-reused-however-old",
        "a memory check reuses the last reading of the available memory however old",
        "lagraph_py/memory.py",
        " or time.monotonic() - at >= REUSE_S",
        "",
        [f"{MEMORY}::test_checks_reuse_a_recent_reading_for_small_shares_only"]),
    _mutation(
        "graph-nedges-self-loops",
        "nedges of an undirected graph counts a self-loop as half an edge",
        "lagraph_py/graph.py",
        "return (self.nstored + self.nself_loops) // 2",
        "return self.nstored // 2",
        [GRAPH]),
    _mutation(
        "graph-id-equal-to-n",
        "Graph.from_edges accepts an id equal to n",
        "lagraph_py/graph.py",
        "if ids.size and ids.max() >= n:",
        "if ids.size and ids.max() > n:",
        [f"{GRAPH}::test_from_edges_rejects"]),
    _mutation(
        "graph-explicit-zeros-dropped",
        "Graph.from_scipy drops explicitly stored zeros (they are edges of weight 0)",
        "lagraph_py/graph.py",
        "coo = A.tocoo(copy=False)\n",
        "coo = A.tocoo()\n        coo.eliminate_zeros()\n",
        [GRAPH]),
    # ------------------------------------------------------------------ SCC
    _mutation(
        "scc-signature-label-rule",
        "signature rounds label a vertex when fw <= bw, not only when fw == bw",
        "lagraph_py/algorithms/scc.py",
        'agree = ex.select(ex.ewise_mult(fw, bw, "minus"), "eq", 0)',
        'agree = ex.select(ex.ewise_mult(fw, bw, "minus"), "le", 0)',
        [SCC]),
    _mutation(
        "scc-sparse-trim-kills-kept",
        "a sparse trim round removes every vertex it checked, kept ones too",
        "lagraph_py/algorithms/scc.py",
        'dead = _remove(ex, ex.apply(check, "index"), keep)',
        'dead = ex.apply(check, "index")',
        [SCC]),
    _mutation(
        "scc-fused-trim-one-neighbour",
        "the fused trim peels vertices with one active out-neighbour (off by one)",
        "lagraph_py/cpu_steps/scc.py",
        "if indeg[v] == 0 or outdeg[v] == 0:",
        "if indeg[v] == 0 or outdeg[v] <= 1:",
        [SCC]),
    _mutation(
        "scc-stopped-labelling-reports-done",
        "the compiled Tarjan, stopped at a root, reports itself finished: its caller takes "
        "the partial labels",
        "lagraph_py/cpu_steps/scc.py",
        "        if stop[0]:\n            return False",
        "        if stop[0]:\n            return True",
        ["tests/test_cpu_steps.py"], k="strong_components_until"),
    _mutation(
        "scc-work-arrays-not-cleared",
        "the compiled SCC call takes its discovery indices as it finds them in the work "
        "arrays it is given: stale values from an earlier use pass for visited vertices",
        "lagraph_py/cpu_steps/scc.py",
        "    rindex[:] = 0\n",
        "",
        ["tests/test_cpu_steps.py"], k="strong_components_until"),
    _mutation(
        "scc-two-cycle-label-max",
        "a 2-cycle is labelled by its larger id",
        "lagraph_py/algorithms/scc.py",
        'pairs = ex.ewise_mult(ex.ewise_mult(nbr, paired, "first"), active, "min")',
        'pairs = ex.ewise_mult(ex.ewise_mult(nbr, paired, "first"), active, "max")',
        [SCC]),
    _mutation(
        "scc-two-cycle-any-neighbours",
        "2-cycle trim takes vertices with several active in-neighbours for pairs",
        "lagraph_py/algorithms/scc.py",
        '"plus_pair", mask=active), "eq", 1)',
        '"plus_pair", mask=active), "ge", 1)',
        [SCC]),
    _mutation(
        "scc-pivot-component-largest-id",
        "the pivot's component is labelled by its largest id",
        "lagraph_py/algorithms/scc.py",
        'ex.assign_scalar(label, ex.reduce(component, "min"), mask=component)',
        'ex.assign_scalar(label, ex.reduce(component, "max"), mask=component)',
        [SCC]),
    _mutation(
        "hub-rule-without-arcs",
        "a graph without arcs counts as one with hubs (its largest degrees, 0, pass a bound of 0)",
        "lagraph_py/algorithms/scc.py",
        "return nstored > 0 and float(max_out)",
        "return float(max_out)",
        [SCC], k="hub_rule"),
    _mutation(
        "cc-fastsv-semiring",
        "FastSV's neighbour minimum takes the matrix entry (*_first in mxv), not the label",
        "lagraph_py/algorithms/scc.py",
        'mngp = ex.mxv(A, gp, "min_second")',
        'mngp = ex.mxv(A, gp, "min_first")',
        [SCC], k="undirected"),
    _mutation(
        "cc-union-find-larger-root",
        "union-find hangs the smaller root under the larger: roots are not smallest ids",
        "lagraph_py/cpu_steps/union_find.py",
        "if a < b:",
        "if a > b:",
        # (small sparse graphs are labelled by searches: the paths of test_components
        # force the union-find on them)
        [SCC, "tests/test_components.py"],
        k="undirected or disconnected or random_graphs_equal"),
    # ------------------------------------------------------------------ cpu executor
    _mutation(
        "cpu-extract-by-position",
        "the reference extract gathers at the index vector's positions, not its values",
        "lagraph_py/cpu.py",
        "values[targets[hit]]",
        "values[k[hit]]",
        [MSF, SCC], k="reference or REFERENCE or fused_matches or chunk"),
    _mutation(
        "cpu-select-edges-semiring",
        "select_edges reads the row labels with ANY_SECOND (the matrix entry)",
        "lagraph_py/cpu.py",
        "D.mxm(M, gb.semiring.any_first)",
        "D.mxm(M, gb.semiring.any_second)",
        [SCC]),
    # ------------------------------------------------------------------ I/O
    _mutation(
        "mtx-skew-mirror-sign",
        "a skew-symmetric file mirrors (i, j, w) as (j, i, w)",
        "lagraph_py/io.py",
        "w = np.concatenate([w, -w])",
        "w = np.concatenate([w, w])",
        [IO]),
    _mutation(
        "mtx-hermitian-directed",
        "a hermitian file is read as a directed graph (not mirrored)",
        "lagraph_py/io.py",
        'directed = h.symmetry in ("general", "skew-symmetric")',
        'directed = h.symmetry != "symmetric"',
        [IO]),
    _mutation(
        "mtx-explicit-zeros-dropped",
        "read_mtx drops entries whose value is 0",
        "lagraph_py/io.py",
        "src, dst, w = rows, cols, values",
        "nz = slice(None) if values is None else values != 0\n"
        "    src, dst, w = rows[nz], cols[nz], None if values is None else values[nz]",
        [IO]),
    _mutation(
        "mtx-zero-index",
        "read_mtx accepts the 1-based index 0",
        "lagraph_py/io.py",
        "(rows >= 1) & (rows <= h.nrows)",
        "(rows >= 0) & (rows <= h.nrows)",
        [IO]),
    _mutation(
        "edgelist-id-equal-to-n",
        "read_edgelist's n check lets an id equal to n through",
        "lagraph_py/io.py",
        "(src < n) & (dst < n)",
        "(src <= n) & (dst <= n)",
        [IO]),
    _mutation(
        "mtx-4-byte-type-unnamed",
        "write_mtx leaves out the type line of int32 and float32 weights: they read back "
        "wider",
        "lagraph_py/io.py",
        "    if kept:                          # mmwrite writes",
        "    if False:                         # mmwrite writes",
        [f"{IO}::test_write_then_read_gives_the_same_graph"]),
    # ------------------------------------------------------------------ validators
    _mutation(
        "validate-bfs-parent-edge",
        "validate.bfs accepts a parent without an edge to its child",
        "lagraph_py/validate.py",
        BFS_PARENT_EDGE,
        "has_parent_edge[cols] = True",
        [VALIDATE]),
    _mutation(
        "validate-bfs-level-jump",
        "validate.bfs accepts an edge whose head is two or more levels below its tail",
        "lagraph_py/validate.py",
        "from_reached & ((lv < 0) | (lv > lu + 1))",
        "from_reached & (lv < 0)",
        [VALIDATE]),
    _mutation(
        "validate-msf-heavier-forest",
        "validate.msf accepts a spanning forest heavier than the minimum",
        "lagraph_py/validate.py",
        '"minimality rule", mine != best',
        '"minimality rule", mine < best',
        [VALIDATE]),
    _mutation(
        "validate-scc-split-component",
        "validate.scc accepts a strongly connected component split over two labels",
        "lagraph_py/validate.py",
        "other = labels[member[comp]]",
        "other = labels",
        [VALIDATE]),
    # ------------------------------------------------------------------ gpu executor
    _mutation(
        "gpu-mask-complement-swapped",
        "gpu vxm/mxv: a complemented mask is applied as a plain one and vice versa",
        "gpu_backend/executor.py",
        "return mask.present, 2 if complement else 1",
        "return mask.present, 1 if complement else 2",
        ["tests/test_gpu_executor.py::test_vxm_mxv"]),
    _mutation(
        "gpu-extract-ignores-presence",
        "gpu extract keeps entries whose table entry is absent",
        "gpu_backend/executor.py",
        "ip & table.present[tt]",
        "ip",
        ["tests/test_gpu_executor.py::test_extract"]),
    _mutation(
        "gpu-select-edges-presence",
        "gpu select_edges keeps an edge whose head has no label",
        "gpu_backend/executor.py",
        "present[rows] & present[cols] & (values[rows] == values[cols])",
        "present[rows] & (values[rows] == values[cols])",
        ["tests/test_gpu_scc.py::test_select_edges_matches_cpu"]),
    _mutation(
        "gpu-loop-free-matrix",
        "the gpu's loop-free adjacency keeps only the upper triangle",
        "gpu_backend/storage.py",
        "keep = rows != indices",
        "keep = rows < indices",
        ["tests/test_gpu_executor.py::test_matrix_without_loops_and_cache",
         "tests/test_gpu_scc.py::test_generated_classes_match_scipy"]),
    _mutation(
        "gpu-pivot-forward-cut-ignored",
        "the gpu's pivot step goes on after a forward search that stopped at its last "
        "level: what it did not reach is left out of the component",
        "gpu_backend/scc_steps.py",
        "if left or reached + 1 < self.scc_pivot_share * nactive:",
        "if reached + 1 < self.scc_pivot_share * nactive:",
        ["tests/test_gpu_scc.py::test_pivot_component_given_up_when_one_search_is_cut"]),
    _mutation(
        "gpu-pivot-backward-cut-ignored",
        "the gpu's pivot labels what both searches reached although the backward one "
        "stopped at its last level",
        "gpu_backend/kernels/scc.cu",
        "    if (stopped) return;",
        "    if (false) return;",
        ["tests/test_gpu_scc.py::test_pivot_component_given_up_when_one_search_is_cut"]),
    _mutation(
        "gpu-search-level-cap-ignored",
        "a team of the search runs past the search's last level: the pivot's searches are "
        "never cut",
        "gpu_backend/kernels/bfs.cu",
        "if (nq == 0 || w.k >= S.max_level || w.pulls(",
        "if (nq == 0 || w.pulls(",
        ["tests/test_gpu_scc.py::test_pivot_searches_cut_at_their_levels"]),
    _mutation(
        "gpu-async-keys-left-in-parents",
        "after an asynchronous finish the parents keep the level in their high word",
        "gpu_backend/kernels/bfs.cu",
        "        if (S.pv) S.pv[v] &= 0xffffffffll;\n",
        "",
        ["tests/test_gpu_bfs.py::test_async_finish_parents_are_the_smallest_of_the_level_before"]),
    _mutation(
        "gpu-async-deep-never-told",
        "the kernel without the asynchronous finish never tells the host that a search met "
        "its rule: a deep graph's searches never finish asynchronously",
        "gpu_backend/kernels/bfs.cu",
        "*(volatile unsigned long long*)S.deep_seen = 1;",
        ";",
        ["tests/test_gpu_bfs.py::"
         "test_a_graph_s_searches_finish_asynchronously_once_one_met_the_rule"]),
    _mutation(
        "gpu-async-deep-seen-ignored",
        "the host launches the kernel with the asynchronous finish only where told to always",
        "gpu_backend/bfs_steps.py",
        "if self.search_async_always or plan.deep_seen[0]",
        "if self.search_async_always",
        ["tests/test_gpu_bfs.py::"
         "test_a_graph_s_searches_finish_asynchronously_once_one_met_the_rule"]),
    _mutation(
        "gpu-async-overflow-not-restarted",
        "a search whose asynchronous finish overflowed ends there, its levels unfinished",
        "gpu_backend/kernels/bfs.cu",
        "            if (finish != ASYNC_ABORTED) return;",
        "            return;",
        ["tests/test_gpu_bfs.py::test_async_finish_that_overflows_starts_again_with_levels"]),
    _mutation(
        "gpu-search-next-bank-not-zeroed",
        "a team of the search starts on the counters the team three before left: its "
        "levels' sizes and edges are wrong where the whole grid's teams hand nothing over",
        "gpu_backend/kernels/bfs.cu",
        "                for (int i = 0; i < BANK; ++i) next[i] = 0;",
        "                ;",
        ["tests/test_gpu_bfs.py::test_search_paths_on_generator_classes",
         "tests/test_gpu_bfs.py::test_search_where_long_in_lists_cluster"]),
    _mutation(
        "search-call-fields-swapped",
        "the search's levels and parents are packed in each other's field of the kernel's "
        "argument",
        "gpu_backend/bfs_steps.py",
        '_SEARCH_CALL = (("source", "q"), ("pv", "q"), ("lv", "q"), ("max_level", "q"))',
        '_SEARCH_CALL = (("source", "q"), ("lv", "q"), ("pv", "q"), ("max_level", "q"))',
        ["tests/test_kernel_arguments.py"]),
    _mutation(
        "gpu-search-pull-long-never",
        "the search's pull levels never share out the rest of the long in-lists: vertices "
        "whose parents lie beyond the cap are left unvisited",
        "gpu_backend/kernels/bfs.cu",
        "longs = !S.long_if_cut || *(volatile unsigned long long*)cut != 0;",
        "longs = !S.long_if_cut;",
        ["tests/test_gpu_bfs.py::test_search_paths_on_generator_classes",
         "tests/test_gpu_bfs.py::test_search_where_long_in_lists_cluster"]),
    _mutation(
        "gpu-search-grid-queue-uncounted",
        "a push level of the whole grid that leaves a queue takes it for a bitmap",
        "gpu_backend/kernels/bfs.cu",
        "if (threadIdx.x == 0) go_on = end_level(S, w, false, to_bits, T, c);",
        "if (threadIdx.x == 0) go_on = end_level(S, w, false, grid_team, T, c);",
        ["tests/test_gpu_bfs.py::test_search_paths_on_generator_classes"]),
    _mutation(
        "gpu-msf-edges-in-pair-order",
        "the gpu edge list stays in (u, v) order: its ids are not the edges' ranks",
        "gpu_backend/msf_steps.py",
        "E.ends = E.ends.reshape(m, 2)[order].ravel()",
        "E.ends = E.ends.reshape(m, 2).ravel()",
        ["tests/test_gpu_msf.py::test_matrix_market_files"]),
    _mutation(
        "device-plan-forgets-scratch",
        "a call is planned resident when its adjacency and vertex arrays fit, its edge "
        "scratch forgotten: it fails half-way instead of running out of core",
        "lagraph_py/device_memory.py",
        "    if (max(0, needs.adjacency - held) + needs.edge_scratch + needs.vertex + "
        "needs.streamed\n            <= budget):",
        "    if (max(0, needs.adjacency - held) + needs.vertex + needs.streamed\n"
        "            <= budget):",
        ["tests/test_device_memory.py"]),
    _mutation(
        "device-plan-streamed-always-resident",
        "out of core, the streamed vertex arrays are kept in device memory whether or not the "
        "budget holds them beside the other vertex arrays",
        "lagraph_py/device_memory.py",
        "needs.vertex + needs.streamed > budget + held_on_device)",
        "False)",
        ["tests/test_device_memory.py"]),
    _mutation(
        "cpu-bfs-unreached-left-unmarked",
        "a search that writes -1 after itself (the last one reached half the graph) skips "
        "the eight-vertex words it reached in part: their unreached vertices keep whatever "
        "the outputs held",
        FUSED_BFS,
        "        if filled or here == 8:\n",
        "        if filled or here > 0:\n",
        [f"{BFS}::test_searches_in_turn_mark_the_unreached_whatever_the_last_one_reached",
         f"{BFS}::test_a_search_after_one_that_reached_most_marks_the_unreached"]),
    _mutation(
        "cpu-bfs-reach-never-recorded",
        "the search fills its outputs first whatever the last search reached (its reach "
        "never recorded): correct, but the graph's searches always write twice",
        FUSED_BFS,
        "        reach[0] = _finish_outputs(visited, nv, parents, levels, filled)",
        "        _finish_outputs(visited, nv, parents, levels, filled)",
        [f"{BFS}::test_a_search_after_one_that_reached_most_marks_the_unreached"]),
    _mutation(
        "cc-searches-label-by-largest-id",
        "the searches of a small sparse graph start from the vertices in descending order: "
        "each component labelled by its largest id",
        "lagraph_py/cpu_steps/components.py",
        "    for s in range(labels.size):\n        if labels[s] >= 0:",
        "    for s in range(labels.size - 1, -1, -1):\n        if labels[s] >= 0:",
        ["tests/test_components.py"]),
    _mutation(
        "msf-gpu-heavy-forest-not-mapped-back",
        "out of core, the forest edges the renumbered heavy rounds find keep their new ids: "
        "the forest's rows name the wrong edges",
        "gpu_backend/msf_steps.py",
        "            found[...] = ids[found]\n",
        "",
        ["tests/test_gpu_outofcore.py::test_an_out_of_core_msf_runs_its_rounds_on_device_copies"]),
    _mutation(
        "msf-gpu-light-list-not-copied-back",
        "out of core, the light rounds' candidates left on their device copy are not copied "
        "back before the heavy edges join them",
        "gpu_backend/msf_steps.py",
        "        if keep_list:\n",
        "        if False:\n",
        ["tests/test_gpu_outofcore.py::test_an_out_of_core_msf_runs_its_rounds_on_device_copies"]),
    _mutation(
        "cc-gpu-chain-share-ignored",
        "GPU connected components join sampled edges once on chains of consecutive ids too",
        "gpu_backend/components_steps.py",
        "    return int(steps) > CHAIN_SHARE * n",
        "    return False",
        ["tests/test_gpu_components.py::test_chains_of_consecutive_ids_joined_from_both_ends"]),
    _mutation(
        "scc-gpu-runs-cross-run-starts",
        "the GPU SCC sweeps' runs of arcs carry fw values past where a run starts (arcs "
        "that do not follow each other)",
        "gpu_backend/kernels/scc.cu",
        "if (lane - d >= first) fw = min(fw, fw_up);",
        "if (lane >= d) fw = min(fw, fw_up);",
        ["tests/test_gpu_scc.py::test_generated_classes_in_every_mode"]),
    _mutation(
        "scc-gpu-runs-never-chosen",
        "the GPU SCC signature kernel never relaxes runs of arcs, whatever the ids",
        "gpu_backend/scc_steps.py",
        "next_id_share(A) > self.scc_run_share)",
        "False)",
        ["tests/test_gpu_scc.py::test_runs_chosen_where_rows_end_at_the_next_id"]),
    _mutation(
        "device-plan-recounts-held-scratch",
        "an out-of-core plan counts the vertex arrays a Graph keeps in device memory from "
        "an earlier call as still to allocate: the second capped call on a graph is refused",
        "lagraph_py/device_memory.py",
        "if needs.vertex > budget + held_on_device:",
        "if needs.vertex > budget:",
        ["tests/test_device_memory.py"]),
    _mutation(
        "device-matrix-holds-its-graph",
        "a device matrix refers to its Graph strongly: the cycle keeps a deleted Graph's "
        "device arrays until Python's next cycle collection",
        "gpu_backend/storage.py",
        "self._graph = None if graph is None else weakref.ref(graph)",
        "self._graph = (lambda g: lambda: g)(graph)",
        ["tests/test_gpu_outofcore.py::test_deleting_a_graph_frees_its_device_arrays_at_once"]),
    _mutation(
        "bfs-route-ignores-costs",
        "the gpu executor hands every small graph's BFS to the host, whatever its first "
        "searches cost: a peer-to-peer graph's searches stay on the slower side",
        "gpu_backend/host_handover.py",
        "return G.n + G.nstored <= ex.bfs_host_items and not device < host",
        "return G.n + G.nstored <= ex.bfs_host_items",
        ["tests/test_gpu_handover.py"]),
    _mutation(
        "free-bytes-trusts-the-pool-under-a-limit",
        "the device memory check answers from the pool's free blocks under a pool limit "
        "too: a limit set below what the pool holds no longer refuses a call",
        "gpu_backend/storage.py",
        "if enough and held >= enough and not limit:",
        "if enough and held >= enough:",
        ["tests/test_gpu_outofcore.py::"
         "test_free_bytes_answers_from_the_pool_only_where_its_blocks_suffice"]),
    # ------------------------------------------------------------------ generators, ranks
    _mutation(
        "kronecker-threads-jump-short",
        "a thread's copy of the random stream is jumped one level of draws short of its "
        "first block: the threaded Kronecker edges differ from one pass's",
        "lagraph_py/generate.py",
        "    per_block = scale * (_CHUNK // 2)",
        "    per_block = (scale - 1) * (_CHUNK // 2)",
        ["tests/test_generate.py::test_quadrant_draws_on_threads_are_those_of_one_pass"]),
    _mutation(
        "ranks-counting-sort-drops-weights",
        "a large part of a distributed graph, built by the counting sort, loses its weights",
        "dist_backend/graph.py",
        "build_csr(hi - lo, src, dst, w, True, ids)",
        "build_csr(hi - lo, src, dst, None, True, ids)",
        ["tests/test_distributed.py::test_constructors_give_the_single_process_graphs"]),
    _mutation(
        "ranks-bfs-push-uncounted",
        "CPU ranks' push levels leave the vertices they visit out of the level's edge "
        "counts: the direction rule is fed wrong counts (same levels)",
        "dist_backend/bfs_steps.py",
        "            _visit(v, u, parent, level, k, out_degree, in_degree, edges)",
        "            parent[v], level[v] = u, k",
        ["tests/test_distributed.py::test_results_equal_the_single_process_executors"]),
    _mutation(
        "ranks-scc-pivot-component-by-largest-id",
        "CPU ranks' SCC labels the pivot's component by its largest id, not its smallest",
        "dist_backend/scc_steps.py",
        "done_labels.append(np.full(own.size, component[0], ids))",
        "done_labels.append(np.full(own.size, component[-1], ids))",
        ["tests/test_distributed.py::test_results_equal_the_single_process_executors"]),
    _mutation(
        "ranks-scc-backward-search-forward",
        "CPU ranks' SCC searches backward from the pivot along its out-arcs: the pivot's "
        "component becomes everything it reaches",
        "dist_backend/scc_steps.py",
        "return forward, self._reach(AT, pivot, live & forward)",
        "return forward, self._reach(A, pivot, live & forward)",
        ["tests/test_distributed.py::test_results_equal_the_single_process_executors"]),
    _mutation(
        "ranks-scc-reach-shares-no-flags",
        "CPU ranks' SCC searches share a level's marks as ids but drop them when they "
        "go as flags",
        "dist_backend/scc_steps.py",
        "                reached |= flags\n",
        "                reached |= flags * 0\n",
        ["tests/test_distributed.py::test_results_equal_the_single_process_executors"]),
    _mutation(
        "ranks-first-pull-revisits-the-source",
        "the first of CPU ranks' consecutive pull levels lists the source among the "
        "unvisited vertices: it takes a parent and a level again",
        "dist_backend/bfs_steps.py",
        "            if level[v] >= 0 or in_degree[v] == 0:",
        "            if level[v] > 0 or in_degree[v] == 0:",
        ["tests/test_distributed.py::test_results_equal_the_single_process_executors"]),
    _mutation(
        "ranks-pull-estimate-reads-unvisited",
        "CPU ranks' pull estimate samples the visited vertices instead of the unvisited: "
        "a switch to pull is weighed against the wrong cost (same levels)",
        "dist_backend/bfs_steps.py",
        "self.level >= 0, samples, frontier_edges)",
        "self.level < 0, samples, frontier_edges)",
        ["tests/test_distributed.py::test_results_equal_the_single_process_executors"]),
    _mutation(
        "ranks-pull-estimate-inverted",
        "the distributed direction rule pulls where the estimate says a pull costs more",
        "dist_backend/bfs_rule.py",
        "and estimate * PROBE_COST >= self.frontier_edges",
        "and estimate * PROBE_COST < self.frontier_edges",
        ["tests/test_distributed.py::test_results_equal_the_single_process_executors",
         "tests/test_distributed_rules.py::test_direction_rule_follows_the_text"]),
    _mutation(
        "shared-gpu-gather-not-copied-back",
        "ranks sharing a GPU gather on the host but never copy the result to the device",
        "dist_backend/nccl.py",
        "        self._put(recv, whole)",
        "        pass",
        ["tests/test_distributed.py::test_gpu_ranks_bfs_on_emulated_devices"]),
    _mutation(
        "gpu-ranks-count-into-rank-0-words",
        "GPU ranks write their new frontier's bitmap into rank 0's words of the frontier "
        "bitmap (the offset of their own range dropped)",
        "dist_backend/gpu_bfs_steps.py",
        "words=b.words, range_words=b.range_words, rank=self.rank,",
        "words=b.words, range_words=b.range_words, rank=0,",
        ["tests/test_distributed.py::test_gpu_ranks_bfs_on_emulated_devices"]),
    _mutation(
        "gpu-ranks-gather-the-other-slot",
        "GPU ranks gather a level's counters and bitmap words into the slot the next level "
        "does not read",
        "dist_backend/gpu_bfs_steps.py",
        "            self._gather(k & 1)",
        "            self._gather((k + 1) & 1)",
        ["tests/test_distributed.py::test_gpu_ranks_bfs_on_emulated_devices"]),
    _mutation(
        "gpu-ranks-skip-the-source-counts",
        "GPU ranks start a search without gathering the source's counts: the first level's "
        "rule reads what the last search left",
        "dist_backend/gpu_bfs_steps.py",
        "        self._gather(_SOURCE_SLOT, bits=False)",
        "        pass",
        ["tests/test_distributed.py::test_gpu_ranks_bfs_on_emulated_devices"]),
    _mutation(
        "dist-msf-ends-not-components",
        "the ranks' Borůvka round compares an edge's two ends instead of their components: "
        "edges inside a component stay and are taken as leaving it",
        "dist_backend/msf_steps.py",
        "        a, b = root_of(uf, u[i]), root_of(uf, v[i])",
        "        a, b = u[i], v[i]",
        ["tests/test_distributed.py::test_results_equal_the_single_process_executors"]),
    _mutation(
        "dist-array-forest-not-flattened",
        "the GPU ranks' Borůvka does not flatten the forest after a round: an edge's ends "
        "gather stale roots (run on numpy arrays by the CPU tests)",
        "dist_backend/gpu_msf_steps.py",
        "        if bool((up == uf).all()):",
        "        if True:",
        ["tests/test_distributed.py::test_results_equal_the_single_process_executors"]),
    _mutation(
        "dist-array-scc-done-early",
        "the GPU ranks' SCC rounds take a vertex out where fw <= bw, not only where the "
        "two meet (run on numpy arrays by the CPU tests)",
        "dist_backend/gpu_scc_steps.py",
        "            done = live & (fw == bw)",
        "            done = live & (fw <= bw)",
        ["tests/test_distributed.py::test_results_equal_the_single_process_executors"]),
    _mutation(
        "dist-cc-one-round",
        "the ranks' connected components stop after one round of minimum labels, "
        "whatever it changed",
        "dist_backend/components_steps.py",
        "            if np.array_equal(merged, label):\n                break",
        "            break",
        ["tests/test_distributed.py::test_results_equal_the_single_process_executors"]),
    _mutation(
        "dist-scc-ranks-never-merge",
        "the ranks' SCC signatures end a sweep without the all-reduce that merges the "
        "ranks' values, each rank going on from its own",
        "dist_backend/scc_steps.py",
        "                both = self.exchange.allreduce(np.concatenate((fw, bw)), \"min\")",
        "                both = np.concatenate((fw, bw))",
        ["tests/test_distributed.py::test_results_equal_the_single_process_executors"]),
    _mutation(
        "dist-scc-handover-misaligned",
        "the ranks' SCC hand-over gives a rank's own live vertices the labels of the first "
        "live vertices, not their own",
        "dist_backend/scc_steps.py",
        "                done_labels.append(labels[own])",
        "                done_labels.append(labels[:np.count_nonzero(own)])",
        ["tests/test_distributed.py::test_results_equal_the_single_process_executors"]),
    _mutation(
        "dist-scc-done-too-soon",
        "the ranks' SCC rounds take a vertex out as labelled once its forward signature "
        "is no larger than its backward one, not equal",
        "dist_backend/scc_steps.py",
        "            if fw[v] == bw[v]:",
        "            if fw[v] <= bw[v]:",
        ["tests/test_distributed.py::test_results_equal_the_single_process_executors"]),
    _mutation(
        "memory-estimate-kept-across-transpose",
        "the host memory estimate kept with a Graph ignores whether its transpose is made: "
        "the estimate from before (which counts the transpose) refuses later calls that fit",
        "lagraph_py/memory.py",
        "key = f\"memory.{task}.{path}.{method}.{int('transpose' in G._cache)}\"",
        "key = f\"memory.{task}.{path}.{method}\"",
        ["tests/test_memory.py::test_a_kept_estimate_follows_the_transpose"]),
    _mutation(
        "cc-placed-after-its-matrix",
        "connected components build the device matrix before the placement: a budget "
        "too small is refused only after the adjacency was allocated",
        "lagraph_py/algorithms/components.py",
        "    with ex.placement(G, \"cc\"):\n"
        "        label = ex.connected_components(ex.matrix(G), G.n)",
        "    A = ex.matrix(G)\n    with ex.placement(G, \"cc\"):\n"
        "        label = ex.connected_components(A, G.n)",
        ["tests/test_device_memory.py::test_every_algorithm_is_placed_before_any_step"]),
    _mutation(
        "out-of-core-steps-still-refuse",
        "out of core, the rooms' own checks still refuse what the budget does not hold "
        "(their edge scratch would go to managed memory)",
        "gpu_backend/storage.py",
        "    if out_of_core_now():\n        return\n",
        "",
        ["tests/test_gpu_outofcore.py::test_a_limited_pool_spills_to_managed_memory"]),
)


# ---------------------------------------------------------------------- applying
def stale_reason(m: Mutation, root: Path) -> str | None:
    """Why ``m`` no longer applies to the tree at ``root``, or None if it does."""
    for e in m.edits:
        path = root / e.path
        if not path.is_file():
            return f"{e.path} is missing"
        count = path.read_text().count(e.old)
        if count != 1:
            return f"{e.path} holds its snippet {count} times, not once: {e.old!r}"
    return None


def apply(m: Mutation, root: Path) -> None:
    """Write ``m``'s edits into the tree at ``root`` and drop the caches they outdate."""
    for e in m.edits:
        path = root / e.path
        path.write_text(path.read_text().replace(e.old, e.new))
        for source in [path, *_importers(root, path)]:
            for cache in source.parent.glob(f"__pycache__/{source.stem}.*"):
                cache.unlink()


def _importers(root: Path, path: Path) -> list[Path]:
    """The sources of compiled loops that import from the module ``path``: their cached
    loops may hold its helpers inlined, and numba's cache would not notice the change."""
    imports = re.compile(rf"^from \S*\b{path.stem} import", re.MULTILINE)
    return [p for p in root.glob("*/**/*.py")
            if p != path and "@njit" in (text := p.read_text()) and imports.search(text)]


def copy_working_tree(dest: Path) -> None:
    """Copy the tracked and untracked (not ignored) files of ``ROOT`` into ``dest``; the
    whole folder but caches where it is no git checkout."""
    try:
        listing = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                                  "--exclude-standard"], cwd=ROOT, check=True,
                                 capture_output=True).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        shutil.copytree(ROOT, dest, ignore=shutil.ignore_patterns(
            ".git", "__pycache__", ".hypothesis", ".pytest_cache"))
        return
    for name in filter(None, listing.split("\0")):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


# ---------------------------------------------------------------------- running
@dataclass(frozen=True)
class Outcome:
    """One pytest run: ``status`` is killed, survived, timeout, crash, no tests or error;
    ``test`` names the first failing test (or what went wrong)."""

    status: str
    test: str
    seconds: float

    @property
    def caught(self) -> bool:
        return self.status in ("killed", "timeout", "crash")


_FAILURE = re.compile(r"^(?:FAILED|ERROR) (.+?)(?: - .*)?$", re.MULTILINE)
#: A frame of a test function in the traceback faulthandler prints when pytest crashes.
_CRASHED_IN = re.compile(r'File "[^"]*?(tests/\w+\.py)", line \d+ in (test_\w+)')


def run_tests(root: Path, tests, k, seed: int, timeout: float, first_failure=True) -> Outcome:
    """Run ``tests`` (``-k k``) in the tree at ``root`` with hypothesis seed ``seed``."""
    shutil.rmtree(root / ".hypothesis", ignore_errors=True)   # no examples from other runs
    command = [sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider",
               f"--hypothesis-seed={seed}", *(["-x"] if first_failure else []), *tests,
               *(["-k", k] if k else [])]
    path = [str(root), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}  # this tree's lagraph_py wins
    env.pop("NUMBA_CACHE_DIR", None)                          # caches in the tree: see apply
    start = time.monotonic()
    process = subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return Outcome("timeout", f"no result within {timeout:.0f} s", timeout)
    seconds = time.monotonic() - start
    failed = _FAILURE.search(output)
    rc = process.returncode
    if rc == 0:
        return Outcome("survived", "", seconds)
    if rc in (1, 2) and failed:                       # 2: an error while collecting
        return Outcome("killed", failed.group(1), seconds)
    if rc < 0:
        frames = _CRASHED_IN.findall(output)
        where = f"{'::'.join(frames[0])}, " if frames else ""
        return Outcome("crash", f"{where}signal {-rc}", seconds)
    if rc == 5:
        return Outcome("no tests", "the selection collects no test", seconds)
    tail = output.strip().splitlines()[-1:] or [""]
    return Outcome("error", f"pytest exit status {rc}: {tail[0]}", seconds)


def gpu_available() -> bool:
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # ImportError, or CUDA runtime errors without a driver
        return False


def baseline(base: Path, mutations, seeds, timeout) -> bool:
    """Run the union of the covering tests, unmutated, on every seed (this also fills the
    numba caches the mutants start from); print what fails."""
    selected = {t for m in mutations for t in m.tests}
    files = {t for t in selected if "::" not in t}            # (a node id of one runs twice)
    tests = sorted(files | {t for t in selected if t.split("::")[0] not in files})
    ok = True
    for seed in seeds:
        outcome = run_tests(base, tests, None, seed, timeout, first_failure=False)
        print(f"unmutated, seed {seed}: {outcome.status} ({outcome.seconds:.0f} s)"
              + (f": {outcome.test}" if outcome.test else ""), flush=True)
        ok &= outcome.status == "survived"
    return ok


def judge(m: Mutation, base: Path, seeds, timeout) -> list[Outcome]:
    """``m``'s outcome on each seed, in a mutated copy of ``base``."""
    tree = base.parent / m.name
    shutil.copytree(base, tree, ignore=shutil.ignore_patterns(".hypothesis"))
    try:
        apply(m, tree)
        return [run_tests(tree, m.tests, m.k, seed, timeout) for seed in seeds]
    finally:
        shutil.rmtree(tree, ignore_errors=True)


def verdict(outcomes: list[Outcome]) -> str:
    if all(o.caught for o in outcomes):
        return "killed"
    if any(o.status == "survived" for o in outcomes):
        return "survived"
    return "error"


# ---------------------------------------------------------------------- command line
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run these mutations only")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    parser.add_argument("--seeds", nargs="+", type=int, default=list(SEEDS),
                        help=f"hypothesis seeds (default {' '.join(map(str, SEEDS))})")
    parser.add_argument("--timeout", type=float, default=TIMEOUT,
                        help=f"seconds one pytest run may take (default {TIMEOUT})")
    args = parser.parse_args(argv)

    names = {m.name for m in MUTATIONS}
    unknown = sorted(set(args.only or ()) - names)
    if unknown:
        parser.error(f"unknown mutation {', '.join(unknown)}; --list shows them")
    chosen = [m for m in MUTATIONS if not args.only or m.name in args.only]
    stale = {m.name: stale_reason(m, ROOT) for m in chosen}
    if args.list:
        for m in chosen:
            files = ", ".join(sorted({e.path for e in m.edits}))
            state = f"STALE: {stale[m.name]}" if stale[m.name] else "applies"
            selection = " ".join(m.tests) + (f" -k {m.k!r}" if m.k else "")
            print(f"{m.name}\n    {m.what}\n    {files}: {state}\n    tests: {selection}")
        return 0

    gpu = gpu_available()
    runnable = [m for m in chosen if not stale[m.name] and (gpu or not m.gpu)]
    results: dict[str, tuple[str, list[Outcome]]] = {}
    for m in chosen:
        if stale[m.name]:
            results[m.name] = ("stale", [])
        elif m.gpu and not gpu:
            results[m.name] = ("skipped", [])
    with tempfile.TemporaryDirectory(prefix="mutants-") as scratch:
        base = Path(scratch) / "unmutated"
        copy_working_tree(base)
        if runnable and not baseline(base, runnable, args.seeds, args.timeout):
            print("the unmutated tree fails its covering tests: fix that first")
            return 2
        for m in runnable:
            outcomes = judge(m, base, args.seeds, args.timeout)
            results[m.name] = (verdict(outcomes), outcomes)
            cells = "; ".join(f"seed {s}: {o.status} {o.test} ({o.seconds:.0f} s)"
                              for s, o in zip(args.seeds, outcomes))
            print(f"{m.name}: {results[m.name][0]} -- {cells}", flush=True)

    print("\n| mutation | result | " + " | ".join(f"seed {s}" for s in args.seeds) + " |")
    print("|---|---|" + "---|" * len(args.seeds))
    for m in chosen:
        status, outcomes = results[m.name]
        cells = [o.test or o.status for o in outcomes] or (
            [stale[m.name] or "no CuPy or CUDA device here"] + [""] * (len(args.seeds) - 1))
        print(f"| {m.name} | {status} | " + " | ".join(cells) + " |")
    counts = {s: sum(1 for r, _ in results.values() if r == s)
              for s in ("killed", "survived", "stale", "skipped", "error")}
    print("\n" + ", ".join(f"{n} {s}" for s, n in counts.items() if n))
    return 1 if counts["survived"] or counts["stale"] or counts["error"] else 0


if __name__ == "__main__":
    sys.exit(main())
