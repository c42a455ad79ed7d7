#!/usr/bin/env bash
# The device check of issue 14, one prepared script for a lent GPU (the `device` tool):
#   1. installs lazyjit with the cuda extra (wheels carried in .whl/ when the machine has
#      no network: see /work/.library/device/README.md), and torch for the peers;
#   2. runs the CUDA test tables on the device (tests/test_cuda.py and every table of
#      tests/conftest.py's CUDA_TABLES, -k cuda);
#   3. runs the benchmarks: benchmarks/gpu.py (elementwise bandwidth against a cupy copy,
#      matmul against cupy, the MLP step against torch CUDA), then PTB LSTM small and
#      medium and the CNN of benchmarks/convnet.py with LAZYJIT_FLAGS=backend=cuda.
# Results go to $OUT (or ./gpu-check-out): tests.log, bench.log.
# Without a GPU everything runs emulated on the CPU (cuda_emulate): a smoke run of the
# script end to end, whose numbers say nothing about a GPU.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-check-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1

if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD
else
  python3 -m pip install -q -e ".[test,cuda,bench]" 2>&1 | tail -3 || true
fi
export PYTHONPATH=${PYTHONPATH:-$PWD}

python3 - <<'PY' 2>&1 | tee "$OUT/device.txt"
from lazyjit.backends import cuda
n = cuda.gpu_count()
print(f"GPUs seen by cupy: {n}" + ("" if n else " (running emulated on the CPU)"))
PY
quick=""
python3 -c 'from lazyjit.backends import cuda; import sys; sys.exit(cuda.gpu_count() == 0)' \
  || quick="--quick"

echo "== CUDA tests ==" | tee "$OUT/tests.log"
timeout 420 python3 -m pytest -q -x tests/test_cuda.py tests/test_ops.py tests/test_grad.py \
  tests/test_forward.py tests/test_scan.py tests/test_random.py tests/test_nn.py \
  tests/test_nn_basic.py tests/test_nn_functional.py tests/test_float16.py -k cuda \
  -p no:cacheprovider 2>&1 | tail -25 | tee -a "$OUT/tests.log"

echo "== benchmarks ==" | tee "$OUT/bench.log"
timeout 120 python3 benchmarks/gpu.py $quick 2>&1 | tee -a "$OUT/bench.log"
for bench in "ptb_lstm.py --quick" "convnet.py --quick"; do
  echo "-- $bench (backend=cuda) --" | tee -a "$OUT/bench.log"
  LAZYJIT_FLAGS="backend=cuda${quick:+,cuda_emulate=true}" timeout 150 \
    python3 benchmarks/$bench 2>&1 | tail -12 | tee -a "$OUT/bench.log"
done
