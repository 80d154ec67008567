#!/usr/bin/env bash
# On a machine with a CUDA GPU: the whole test suite (GPU tests included) and the GPU demo
# (`tests`), or the GPU benchmarks against their baselines (`bench`: BFS; MSF against
# ECL-MST and SCC against ECL-SCC, built from the peer sources in .peers/ when present), or
# the corpus benchmark (`corpus`: bench/gpu_corpus.py on $LAGRAPH_CORPUS, by default the
# pack in .corpus_pack, with the ECL binaries /tmp/ecl-mst, /tmp/ecl-scc and /tmp/ecl-cc
# where they exist; further arguments go to the runner).
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
  corpus)
    ecl=()
    for peer in ecl-mst ecl-scc ecl-cc; do
      [ -x "/tmp/$peer" ] && ecl+=("--$peer" "/tmp/$peer")
    done
    ulimit -s unlimited 2>/dev/null
    LAGRAPH_CORPUS=${LAGRAPH_CORPUS:-.corpus_pack} python3 bench/gpu_corpus.py "${ecl[@]}" \
      --out "$out/gpu_corpus_$tag.json" "${@:2}" 2>&1 | tee "$out/bench_corpus.log"
    ;;
  *)
    echo "usage: $0 tests|bench|corpus [runner arguments]" >&2
    exit 2
    ;;
esac
