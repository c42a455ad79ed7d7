#!/usr/bin/env bash
# The device check of issue 14, one prepared script for a lent GPU (the `device` tool):
#   1. installs lazyjit with the cuda extra (wheels carried in .whl/ when the machine has
#      no network: see /work/.library/device/README.md), and torch for the peers;
#   2. runs the CUDA test tables on the device (every module of tests/conftest.py's
#      CUDA_TABLES, -k cuda);
#   3. runs the benchmarks: benchmarks/gpu.py (elementwise bandwidth against a cupy copy,
#      matmul against cupy, the MLP step against torch CUDA), then PTB LSTM small and
#      medium and the CNN of benchmarks/convnet.py with LAZYJIT_FLAGS=backend=cuda.
# Results go to $OUT (or ./gpu-check-out): device.txt, tests.log (pytest.txt: all of it),
# bench.log (the digits example last).
# Without a GPU everything runs emulated on the CPU (cuda_emulate): a smoke run of the
# script end to end, whose numbers say nothing about a GPU.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-check-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1

# Run it inside the Python environment to use (python3 is called as found on PATH).
# On the lent H200 (no network; torch, cupy, pytest and NVRTC in its image) the wheels of
# what it lacks (cffi, pycparser) travel in .whl/; elsewhere pip installs the cuda and
# test extras, and torch only where there is a GPU to compare with.
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD
else
  python3 -m pip install -q -e ".[test,cuda]" 2>&1 | grep -v '^WARNING: Location' | tail -3
fi
export PYTHONPATH=${PYTHONPATH:-$PWD}
# the optional C extension, for this Python (a build made elsewhere may not load here)
python3 setup.py -q build_ext --inplace > "$OUT/build.log" 2>&1 \
  || echo "no C extension built (see build.log): the Python paths run" | tee -a "$OUT/build.log"

python3 - <<'PY' 2>&1 | tee "$OUT/device.txt"
import numpy as np
import lazyjit as lj
from lazyjit.backends import cuda
n = cuda.gpu_count()
print(f"GPUs seen by cupy: {n}" + ("" if n else " (running emulated on the CPU)"))
if n:
    import cupy
    from lazyjit.backends.cuda import device, nvrtc
    print("device:", cupy.cuda.runtime.getDeviceProperties(0)["name"].decode(),
          device.arch(), "cupy", cupy.__version__, "NVRTC", nvrtc.version())
    with lj.config(backend="cuda"):  # a first kernel on the device, against NumPy
        x = np.arange(10, dtype=np.float32)
        print("x*2+1 on the GPU:", lj.jit(lambda t: t * 2 + 1)(lj.tensor(x)).numpy())
        print("sum(axis=0):", lj.tensor(x.reshape(2, 5)).sum(axis=0).numpy())
        t = lj.tensor(x) * 2
        for name, fn in (("cupy.from_dlpack", cupy.from_dlpack),
                         ("torch.from_dlpack", lambda t: __import__("torch").from_dlpack(t))):
            try:
                r = fn(t)
                print(f"{name}(t): {type(r).__name__} on {getattr(r, 'device', '?')}, "
                      f"values {r.tolist()}")
            except Exception as e:  # (recorded: what the exchange does today)
                print(f"{name}(t) raised {type(e).__name__}: {e}")
PY
quick="" emulate="" workers=14  # (the H200 machine has 16 cores)
# every module of tests/conftest.py's CUDA_TABLES (the tables CI runs emulated)
tables=$(python3 - <<'PY'
import ast
tree = ast.parse(open("tests/conftest.py").read())
names = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
             and getattr(n.targets[0], "id", "") == "CUDA_TABLES")
print(" ".join(f"tests/{m}.py" for m in sorted(names)))
PY
)
if ! python3 -c 'from lazyjit.backends import cuda; import sys; sys.exit(cuda.gpu_count() == 0)'
then  # emulated: a smoke run (CI runs every table emulated)
  quick="--quick" emulate=",cuda_emulate=true" workers=2 tables="tests/test_cuda.py tests/test_float16.py"
elif [ ! -d .whl ]; then
  python3 -m pip install -q torch 2>&1 | grep -v '^WARNING: Location' | tail -3
fi

echo "== benchmarks ==" | tee "$OUT/bench.log"
timeout 90 python3 benchmarks/gpu.py $quick 2>&1 | tee -a "$OUT/bench.log"
echo "== CUDA tests (${workers} processes) ==" | tee "$OUT/tests.log"
# shellcheck disable=SC2086
timeout 200 python3 -m pytest -q -n "$workers" $tables -k cuda -p no:cacheprovider \
  -rfEs --tb=short > "$OUT/pytest.txt" 2>&1
rc=$?
grep -E "^(FAILED|ERROR)|passed|failed" "$OUT/pytest.txt" | tail -60 | tee -a "$OUT/tests.log"
case $rc in
  0) echo "CUDA tests: passed" ;;
  124) echo "CUDA tests: TIMED OUT after 200 s (the summary above is partial)" ;;
  *) echo "CUDA tests: FAILED (pytest exit code $rc)" ;;
esac | tee -a "$OUT/tests.log"

echo "== PTB LSTM and the CNN ==" | tee -a "$OUT/bench.log"
for bench in "ptb_lstm.py --quick" "convnet.py --quick"; do
  echo "-- $bench (backend=cuda) --" | tee -a "$OUT/bench.log"
  LAZYJIT_FLAGS="backend=cuda$emulate" timeout 75 \
    python3 benchmarks/$bench 2>&1 | tail -12 | tee -a "$OUT/bench.log"
done

echo "-- the digits example, --device cuda --" | tee -a "$OUT/bench.log"
timeout 120 python3 -m lazyjit.examples.digits --device cuda 2>&1 | tail -4 | tee -a "$OUT/bench.log"
