#!/usr/bin/env bash
# On a machine with a CUDA GPU: the whole test suite (GPU tests included) and the GPU demo
# (`tests`), or the GPU benchmarks against their baselines (`bench`: BFS; MSF against
# ECL-MST and SCC against ECL-SCC, built from the peer sources in .peers/ when present).
# Logs and JSON go to $OUT (default /tmp/out).
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
tag=$(python3 -c "import cupy; n = cupy.cuda.runtime.getDeviceProperties(0)['name'].decode(); print('h200' if 'H200' in n else 'h100' if 'H100' in n else 'gpu')")
case "${1:-}" in
  tests)
    python3 -c "import cupy; print('GPU:', cupy.cuda.runtime.getDeviceProperties(0)['name'].decode())"
    python3 -m pytest -q -p no:cacheprovider -rs 2>&1 | tee "$out/pytest.log" | tail -40
    python3 -m lagraph_py --backend gpu --scale 20 2>&1 | tee "$out/demo_gpu.log"
    ;;
  bench)
    python3 bench/gpu_bfs.py --rules --out "$out/gpu_bfs_$tag.json" 2>&1 | tee "$out/bench_bfs.log"
    python3 bench/gpu_msf.py --out "$out/gpu_msf_$tag.json" 2>&1 | tee "$out/bench_msf.log"
    ecl=()
    if [ -f .peers/ECL-SCC_10.cu ] && nvcc -O3 -arch=sm_90 -o /tmp/ecl-scc .peers/ECL-SCC_10.cu; then
      ecl=(--ecl /tmp/ecl-scc)
    fi
    python3 bench/gpu_scc.py "${ecl[@]}" --out "$out/gpu_scc_$tag.json" 2>&1 | tee "$out/bench_scc.log"
    ;;
  *)
    echo "usage: $0 tests|bench" >&2
    exit 2
    ;;
esac
