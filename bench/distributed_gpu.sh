#!/usr/bin/env bash
# The distributed executor's GPU ranks on a machine with 2 GPUs, one rank a GPU, from the
# source tree's root (python-graphblas and the rest importable):
#   [PARTS="bfs25 bfs26 msf_scc20 msf_scc22"] [TESTS=1] bash bench/distributed_gpu.sh \
#       [MPI_WHEELS] [SECONDS]
# MPI_WHEELS: a folder of the mpich and mpi4py wheels to install first (the `mpi` extra
# offline), else the mpiexec and mpi4py already there. SECONDS (default 480): the whole
# run's time; what would pass it is skipped, and said so. PARTS: the timings to run, in
# order (bfsS: BFS on Kronecker S; msf_sccS: MSF and SCC on Kronecker S, MSF_REPEATS
# timed calls each after a warm-up, default 1: a call takes seconds to minutes; 0: one
# call, not warmed up and measured part by part, for graphs whose calls take minutes);
# TESTS=0: none of the checks; CHECK=0: no timed result compared with the single process.
#  1. the host-side tests, and the GPU ranks against the single-process gpu executor with
#     2 ranks (tests/mpi/agree_gpu.py: BFS levels equal, parents valid, forests equal, on
#     shaped and random graphs and Kronecker 16-17; SCC on the small ones); no timings
#     if a result differs;
#  2. timings (bench/distributed.py): by default BFS on Kronecker 25 and 26, then MSF and
#     SCC on Kronecker 20 and 22 (Kronecker 24 or 25: PARTS=msf_scc24 MSF_REPEATS=0,
#     CHECK=0 where a call takes minutes); each graph built once by 2 ranks,
#     timed on 2 ranks (two GPUs), then gathered on rank 0 and timed there on 1 rank (one
#     GPU) and by the single-process gpu executor; 64 BFS sources; each distributed
#     timing followed by one call measured part by part (--split: the BFS level by
#     level, MSF and SCC apart from their collectives) and one result of each compared
#     with the single process's (--check);
# rows in $OUT/distributed_<host>.json (issue schema plus "gpus"), logs beside it.
# NVLink multicast (NVLS) stays off: NCCL_NVLS_ENABLE=0 for every process.
set -uo pipefail
start=$SECONDS
total=${2:-480}
out=${OUT:-/tmp/out}                 # setup, checks and bench logs, the rows
rows=$out/parts                      # each part's rows and log (kept if the run is cut)
mkdir -p "$rows"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1 LAGRAPH_PY_MPI_TIMEOUT=300
left() { echo $((total - (SECONDS - start))); }
stamp() { echo "[$((SECONDS - start)) s] $*"; }

if [ -n "${1:-}" ]; then        # --prefix, not --target: --target drops the wheel's lib/
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --ignore-installed \
    --prefix /tmp/mpi \
    "$1"/*.whl || exit 1
  site=$(echo /tmp/mpi/lib/python3*/site-packages)
  export PATH=/tmp/mpi/bin:$PATH LD_LIBRARY_PATH=/tmp/mpi/lib:${LD_LIBRARY_PATH:-}
  export PYTHONPATH=$site:$PWD:${PYTHONPATH:-}
fi
export PYTHONPATH=$PWD:${PYTHONPATH:-}
export MPIEXEC=$(command -v mpiexec)             # the one the bench launches with
# NCCL from the nvidia-nccl wheel, where CuPy does not find it by itself
nccl_lib=$(python3 -c "import nvidia.nccl as m; print(list(m.__path__)[0] + '/lib')" 2>/dev/null)
[ -n "$nccl_lib" ] && export LD_LIBRARY_PATH=$nccl_lib:${LD_LIBRARY_PATH:-}
host=$(hostname)
python3 - <<'EOF' 2>&1 | tee "$out/setup.log"
import cupy, mpi4py
from cupy.cuda import nccl
from mpi4py import MPI
n = cupy.cuda.runtime.getDeviceCount()
names = {cupy.cuda.runtime.getDeviceProperties(i)["name"].decode() for i in range(n)}
print(f"{n} GPUs {sorted(names)}; NCCL {nccl.get_version() if nccl.available else 'missing'};",
      f"mpi4py {mpi4py.__version__}, {MPI.Get_library_version().splitlines()[0]}")
EOF
stamp "setup done"

# 1. tests (TESTS=0 skips them)
if [ "${TESTS:-1}" != 0 ]; then
  python3 -m pytest -q -p no:cacheprovider tests/test_distributed_rules.py 2>&1 | tail -3
  timeout -k 10 $(( $(left) < 180 ? $(left) : 180 )) $(python3 -c "from dist_backend import launch; print(*launch.command(2, []))") \
    python3 -m mpi4py tests/mpi/agree_gpu.py tests 3 17 > "$out/agree_gpu.log" 2>&1
  agreed=$?
  echo "agree_gpu exit $agreed: $(tail -1 "$out/agree_gpu.log")"
  grep -v "done (" "$out/agree_gpu.log" | tail -15
  stamp "equality checks done"
  [ "$agreed" = 0 ] || { stamp "no timings: a result differs"; exit 1; }
fi

# 2. timings, the most wanted first; each part gets what is left
bench() {   # name, then bench/distributed.py arguments
  local name=$1; shift
  local budget=$(( $(left) - 10 ))
  if [ "$budget" -lt 30 ]; then stamp "skipped $name: no time left"; return; fi
  python3 bench/distributed.py --backend gpu --ranks 2 --one-rank-too --strong-only \
    --no-1proc --sources 64 --repeats 3 --split $([ "${CHECK:-1}" = 0 ] || echo --check) \
    --budget "$budget" \
    --output "$rows/$name.json" "$@" > "$rows/$name.log" 2>&1
  grep -E " s  |built|skipped|stopped|failed| ms$|^split|^check" "$rows/$name.log" | tail -24
  cat "$rows/$name.log" >> "$out/bench.log"
  stamp "$name done"
}
for part in ${PARTS:-bfs25 bfs26 msf_scc20 msf_scc22}; do      # PARTS: some, in order
  case $part in
    bfs*) bench "$part" --scales "${part#bfs}" --tasks bfs ;;
    msf_scc*) bench "$part" --scales "${part#msf_scc}" --tasks msf scc \
                --repeats "${MSF_REPEATS:-1}" ;;
  esac
done

python3 - "$rows" "$out/distributed_$host.json" <<'EOF'
import json, sys
from pathlib import Path
parts = [json.loads(p.read_text()) for p in sorted(Path(sys.argv[1]).glob("*.json"))]
if parts:
    merged = dict(parts[0], rows=[r for p in parts for r in p["rows"]],
                  splits=[r for p in parts for r in p.get("splits", [])],
                  checks=[r for p in parts for r in p.get("checks", [])])
    Path(sys.argv[2]).write_text(json.dumps(merged, indent=1))
    for r in merged["rows"]:
        print(f"{r['graph']:>7} {r['task']:>4} ranks {r['ranks']} gpus {r['gpus']} "
              f"{r['seconds'] * 1e3:10.2f} ms")
EOF
stamp "all done"
