#!/usr/bin/env bash
# On a machine with a CUDA GPU: the whole test suite (GPU tests included) and the GPU demo
# (`tests`), or the GPU BFS benchmark (`bench`). Logs and JSON go to $OUT (default /tmp/out).
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
case "${1:-}" in
  tests)
    python3 -c "import cupy; print('GPU:', cupy.cuda.runtime.getDeviceProperties(0)['name'].decode())"
    python3 -m pytest -q -p no:cacheprovider -rs 2>&1 | tee "$out/pytest.log" | tail -40
    python3 -m lagraph_py --backend gpu --scale 20 2>&1 | tee "$out/demo_gpu.log"
    ;;
  bench)
    python3 bench/gpu_bfs.py --rules --out "$out/gpu_bfs_h100.json" 2>&1 | tee "$out/bench.log"
    ;;
  *)
    echo "usage: $0 tests|bench" >&2
    exit 2
    ;;
esac
