#!/usr/bin/env bash
# The checks that need a GPU, as one run (CI has none; run this where a GPU is lent):
#
#     benchmarks/gpu_check.sh OUT_DIR [STEP...]     (STEPs: run only these, by name)
#
#  1. verify:     `contiglint verify --device cuda` over contiglint's own fixtures, nothing
#                 emulated: device moves really cross to the GPU;
#  2. cuda-tests: the test files with CUDA tests (verify, runtime watch, tracer);
#     nccl:       the NCCL column of the collectives table, measured on a one-rank NCCL group
#                 (its own step: a hung NCCL call costs only its own time limit);
#  3. runtime:    benchmarks/runtime_overhead.py --device cuda, the watcher's cost on training
#                 steps that run on the GPU;
#  4. op-table:   the op table against torch with every test tensor on the GPU
#                 (`--torch-device cuda`), where kernels may choose other output strides, 30
#                 cases per entry (the count of UNKNOWN predictions is a CPU run's check);
#  5. generated:  the same generated programs run on the CPU and on the GPU, disagreements
#                 with the model side by side.
#
# Each step has its own time limit and log (OUT_DIR/NAME.log); the last lines of each log and
# its exit status are printed. It runs from the checkout without installing it (PYTHONPATH),
# with the machine's own torch. Exit status: the number of steps that failed.
set -u
out=${1:?usage: benchmarks/gpu_check.sh OUT_DIR [STEP...]}
shift
only=" $* "
mkdir -p "$out"
cd "$(dirname "$0")/.."
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
python=${PYTHON:-python3}
jobs=$(( $(nproc) > 12 ? 12 : $(nproc) ))
failed=0

step() {  # step NAME SECONDS COMMAND...
    local name=$1 limit=$2 start=$SECONDS rc
    shift 2
    [ "$only" = "  " ] || [[ $only == *" $name "* ]] || return 0
    echo "=== $name: $*"
    timeout "$limit" "$@" >"$out/$name.log" 2>&1
    rc=$?
    echo "=== $name: exit $rc after $((SECONDS - start)) s$([ $rc = 124 ] && echo ' (time limit)')"
    tail -n "${TAIL:-12}" "$out/$name.log"
    [ $rc = 0 ] || failed=$((failed + 1))
}

"$python" -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__,
    "cuda", torch.version.cuda, torch.cuda.get_device_name(0) if torch.cuda.is_available()
    else "NO CUDA DEVICE")'
step verify 90 "$python" -m contiglint verify --device cuda -j "$jobs"
step cuda-tests 150 "$python" -m pytest -q -n 4 -p no:cacheprovider -rfEs \
    tests/test_verify.py tests/test_runtime_watch.py tests/test_tracer.py
NCCL_DEBUG=WARN step nccl 60 "$python" -m pytest -v -p no:cacheprovider -rfEs \
    tests/test_nccl_collectives.py
step runtime 120 "$python" benchmarks/runtime_overhead.py --device cuda --pairs 5 --warmup 20
CONTIGLINT_OP_EXAMPLES=30 step op-table 150 "$python" -m pytest -q -n "$jobs" \
    -p no:cacheprovider -rfE --run-slow -k "not summary" \
    --torch-device cuda tests/test_op_table.py
TAIL=40 step generated-cpu 45 "$python" benchmarks/generated_programs.py 4000 --seed 60 \
    --batch 1000 -j "$jobs" --no-shrink --device cpu
TAIL=40 step generated-cuda 75 "$python" benchmarks/generated_programs.py 4000 --seed 60 \
    --batch 1000 -j "$jobs" --no-shrink --device cuda
echo "=== $failed step(s) failed"
exit "$failed"
