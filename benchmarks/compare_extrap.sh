#!/usr/bin/env bash
# perfcompose's PMNF fitter and Extra-P 4.2.5 on the PMNF fitter benchmark (bench/fit), one run.
# Usage: [SEED=N] [MEANS=1] benchmarks/compare_extrap.sh BENCH_DIR [OUT_DIR]
#   BENCH_DIR: the benchmark folder (gen_data.py, run_extrap.py, run_adapter.py, compare.py)
#   SEED: the generator's seed (default: the benchmark's own)
#   MEANS=1: perfcompose gets each point's mean only, as Extra-P models it (no repetitions)
# Extra-P pins numpy<2, so it gets its own virtual environment (.venv-extrap); perfcompose runs
# in the current Python environment.
set -euo pipefail
BENCH="$(cd "$1" && pwd)"
OUT="$(mkdir -p "${2:-bench_out}" && cd "${2:-bench_out}" && pwd)"
HERE="$(cd "$(dirname "$0")" && pwd)"
PY="${PYTHON:-python}"
if [ ! -x .venv-extrap/bin/python ]; then
  python3 -m venv .venv-extrap && .venv-extrap/bin/pip install -q "extrap==4.2.5"
fi
cd "$BENCH"
"$PY" gen_data.py --out "$OUT" ${SEED:+--seed "$SEED"}
"$OLDPWD/.venv-extrap/bin/python" run_extrap.py --data "$OUT/datasets.json" --out "$OUT/results" \
    --modelers Default --check-cli 0 --no-check-text
NAME="perfcompose${MEANS:+_means}"
PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}" "$PY" run_adapter.py --adapter "pmnf_adapter:make${MEANS:+_means}" \
    --name "$NAME" --data "$OUT/datasets.json" --out "$OUT/results"
"$PY" compare.py "$OUT/results/extrap_default_summary.json" "$OUT/results/${NAME}_summary.json"
"$PY" "$HERE/extrap_targets.py" "$OUT/results/extrap_default_results.csv" "$OUT/results/${NAME}_results.csv"
