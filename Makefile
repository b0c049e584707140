# XCS: two commands do everything on a fresh Debian machine with the Rust toolchain.
#   make run    set up, build, run the example pipelines (classify, vmap-batch, auto-shard, fuse, cost-annotate
#               on a program mixing tensor math with LLM calls; an MLP, also sharded over 2 devices), then run
#               the compiled programs natively (LLVM JIT), on simulated devices and on the reference interpreter,
#               and the Python frontend's examples
#   make test   set up, build, run every test (cargo tests, the lit suite, the interpreter vs numpy, the
#               Python frontend's pytest suite)
# Other targets: make bench (benchmarks; bench-native: the LLVM backend vs numpy and jax; bench-matmul: the matmul
# library vs OpenBLAS in one process; bench_mlir_backend.py: the
# upstream-MLIR backend (xcs-run --backend=mlir) next to ours; bench-frontend:
# the Python frontend vs jax.jit), make frontend (build and install the Python package), make fuzz (fuzz the
# parser+verifier), make fuzz-passes (the differential pass fuzzer: every pass against the interpreter and the
# JIT, FUZZ_SECONDS), make check-math-ulp (every f32 in [-2^22, 2^22] through sin/cos/erf against libm), make docs.

LLVM_BIN    ?= /usr/lib/llvm-22/bin
# OpenMPI: the MPI transport of SPMD programs (xcs-run --mpi, xcs-translate --mpi) and its tests
APT_PKGS    := llvm-22-dev libmlir-22-dev libclang1-22 libclang-common-22-dev mlir-22-tools llvm-22-tools libpolly-22-dev zlib1g-dev libzstd-dev openmpi-bin libopenmpi-dev
SUDO        := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
CARGO       ?= cargo
PYTHON      ?= python3
XCS_OPT     := target/debug/xcs-opt
XCS_RUN     := target/debug/xcs-run
EXAMPLE     ?= examples/pipeline.mlir
# the mission's pipeline: classify, batch the maps, inline, clean up and fuse, then the cost model
PIPELINE    ?= builtin.module(classify,vmap-batch,inline,auto-shard{mesh=2 axes=dp},func.func(canonicalize,cse,fuse),cost-annotate)
# the inputs of examples/pipeline.mlir's @score_batch and @triage (seeded random weights)
EXAMPLE_INPUTS := --input xs=random:1 --input w1=random:2 --input b1=random:3 --input w2=random:4
MLP_EXAMPLE ?= examples/mlp.mlir
MLP_PIPELINE ?= builtin.module(inline,func.func(canonicalize,cse,fuse),symbol-dce)
# the MLP sharded over 2 devices: auto-shard's optimal plan under a cost model in which compute
# dominates (slow devices, a fast network), partitioned into the per-device SPMD program
SHARD_PIPELINE ?= builtin.module(inline,auto-shard{mesh=2 axes=dp alpha=1e-9 bandwidth=1e12 peak-flops=1e6},shard-partition,func.func(canonicalize,cse,fuse),symbol-dce)
FUZZ_SECONDS ?= 600
# the benchmarks measure the release build (make bench, make bench-native); `make run` the debug one
BENCH_XCS_RUN ?= target/release/xcs-run

.PHONY: all deps build build-release frontend bench-frontend run test test-cargo test-lit test-python bench bench-deps bench-native bench-matmul fuzz fuzz-passes check-math-ulp docs check-docs clean

all: build

# ---- set-up: Debian packages (LLVM/MLIR 22) and Python packages, installed only if missing
deps: .deps-stamp
.deps-stamp: Makefile requirements.txt
	@if [ ! -x $(LLVM_BIN)/FileCheck ] || [ ! -x $(LLVM_BIN)/mlir-minimal-opt ] || [ ! -x $(LLVM_BIN)/llvm-config ] || ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then \
	  echo "== installing LLVM/MLIR 22 and OpenMPI from Debian"; \
	  $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y $(APT_PKGS); \
	fi
	@$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $@

build: deps
	$(CARGO) build --workspace --bins

build-release: deps
	$(CARGO) build --release --workspace --bins

# the Python package `xcs` (frontend/): its extension built by maturin in the dev profile, so it
# reuses the crates `make build` compiled into target/debug, then installed with pip.
# `--auditwheel skip`: the wheel links the system's libLLVM instead of bundling it.
WHEEL_DIR := target/wheels
frontend: build
	@rm -rf $(WHEEL_DIR)
	$(PYTHON) -m maturin build --quiet --auditwheel skip --manifest-path frontend/Cargo.toml -o $(WHEEL_DIR)
	$(PYTHON) -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps $(WHEEL_DIR)/xcs-*.whl

# Compares the .npy outputs of two xcs-run --output-dir directories (the JIT's, the interpreter's).
compare_outputs = $(PYTHON) -c 'import numpy as np, pathlib, sys; a, b, what = sys.argv[1:4]; fs = sorted(pathlib.Path(a).glob("*.npy")); assert fs, "no outputs"; bad = [f.name for f in fs if not np.allclose(np.load(f), np.load(pathlib.Path(b) / f.name), rtol=1e-5, atol=1e-5)]; print("==", what, "agree (rtol 1e-5) on", ", ".join(f.name for f in fs)) if not bad else sys.exit("error: " + what + " differ on " + ", ".join(bad))' $(1) $(2) $(or $(3),'the JIT and the interpreter')

# ---- the main job: the pipeline on the examples, then the optimized programs compiled through
# LLVM and run by xcs-run's JIT, and on the reference interpreter (to compare; and the program
# with LLM calls, which the interpreter runs with the built-in echo provider)
run: build frontend
	@mkdir -p target/run
	@rm -rf target/run/jit target/run/interp target/run/score-jit target/run/score-interp
	@echo "== $(XCS_OPT) $(EXAMPLE) --pass-pipeline='$(PIPELINE)' --classify-report=target/run/classify.json --cost-report=target/run/cost.json"
	@$(XCS_OPT) $(EXAMPLE) --pass-pipeline='$(PIPELINE)' --classify-report=target/run/classify.json --cost-report=target/run/cost.json -o target/run/pipeline.opt.mlir
	@cat target/run/pipeline.opt.mlir
	@$(PYTHON) -c 'import json; c = json.load(open("target/run/classify.json")); print("== classify:", ", ".join(f["name"] + " " + f["class"] for f in c["functions"]), "(target/run/classify.json)"); t = json.load(open("target/run/cost.json")); print("== cost-annotate: module", t["flops"], "FLOPs,", t["memory_read"], "bytes read,", t["memory_write"], "written (target/run/cost.json)")'
	@echo "== $(XCS_RUN) target/run/pipeline.opt.mlir --entry score_batch $(EXAMPLE_INPUTS)   (LLVM JIT)"
	@$(XCS_RUN) target/run/pipeline.opt.mlir --entry score_batch $(EXAMPLE_INPUTS) --print --output-dir target/run/score-jit
	@$(XCS_RUN) target/run/pipeline.opt.mlir --entry score_batch $(EXAMPLE_INPUTS) --backend=interp --output-dir target/run/score-interp
	@$(call compare_outputs,target/run/score-jit,target/run/score-interp)
	@echo "== $(XCS_RUN) target/run/pipeline.opt.mlir --backend=interp --provider echo --entry triage $(EXAMPLE_INPUTS) --input question='str:Which items need a human?'   (the reference interpreter; the echo provider answers with the prompt)"
	@$(XCS_RUN) target/run/pipeline.opt.mlir --backend=interp --provider echo --entry triage $(EXAMPLE_INPUTS) --input question='str:Which items need a human?'
	@echo "== $(XCS_OPT) $(MLP_EXAMPLE) --pass-pipeline='$(MLP_PIPELINE)'"
	@$(XCS_OPT) $(MLP_EXAMPLE) --pass-pipeline='$(MLP_PIPELINE)' -o target/run/mlp.opt.mlir
	@cat target/run/mlp.opt.mlir
	@echo "== $(XCS_RUN) target/run/mlp.opt.mlir --input x=random:1 --input w1=random:2 --input w2=random:3   (LLVM JIT)"
	@$(XCS_RUN) target/run/mlp.opt.mlir --input x=random:1 --input w1=random:2 --input w2=random:3
	@$(XCS_RUN) target/run/mlp.opt.mlir --input x=random:1 --input w1=random:2 --input w2=random:3 --output-dir target/run/jit
	@echo "== the same on the reference interpreter (--backend=interp), compared with numpy"
	@$(XCS_RUN) target/run/mlp.opt.mlir --backend=interp --input x=random:1 --input w1=random:2 --input w2=random:3 --output-dir target/run/interp
	@$(call compare_outputs,target/run/jit,target/run/interp)
	@$(XCS_RUN) target/run/mlp.opt.mlir --input x=random:1 --input w1=random:2 --input w2=random:3 --bench 100
	@echo "== $(XCS_OPT) $(MLP_EXAMPLE) --pass-pipeline='$(SHARD_PIPELINE)' --shard-report=target/run/shard-plan.json"
	@$(XCS_OPT) $(MLP_EXAMPLE) --pass-pipeline='$(SHARD_PIPELINE)' --shard-report=target/run/shard-plan.json -o target/run/mlp.part.mlir
	@grep -E 'shard\.|func.func @main' target/run/mlp.part.mlir
	@echo "== $(XCS_RUN) target/run/mlp.part.mlir --devices=2 ...   (every device a thread, collectives over shared memory), compared with the single-device run"
	@rm -rf target/run/devices && $(XCS_RUN) target/run/mlp.part.mlir --devices=2 --input x=random:1 --input w1=random:2 --input w2=random:3 --output-dir target/run/devices
	@$(call compare_outputs,target/run/devices,target/run/jit,'2 simulated devices and one')
	@echo "== $(PYTHON) examples/mlp.py   (the Python frontend: xcs.jit traces, optimizes and compiles an MLP in-process)"
	@$(PYTHON) examples/mlp.py
	@echo "== $(PYTHON) examples/llm_pipeline.py   (xcs.vmap over prompts on a thread pool, a registered provider)"
	@$(PYTHON) examples/llm_pipeline.py
	@echo "== $(PYTHON) examples/shard_map.py   (xcs.shard_map: auto-shard plans, shard-partition splits, simulated devices run it)"
	@$(PYTHON) examples/shard_map.py

# ---- every test
test: test-cargo test-lit test-python

test-cargo: deps
	$(CARGO) test --workspace

test-lit: build
	$(LLVM_BIN)/lit -sv test

# the reference interpreter (xcs-run --interp) against numpy, the xcs-run command line, the
# native and compile-time benchmark harnesses (with a fake xcs-run), the benchmark module generator,
# the shard benchmarks' harnesses, xcs.lazy's benchmark (a quick run), and the Python frontend
# (frontend/tests: xcs.numpy against numpy, jit, vmap, orchestration, xcs.lazy, kernels)
test-python: build frontend
	$(PYTHON) -m pytest -q -p no:cacheprovider test/interp tools/bench/test_bench_native.py tools/bench/test_bench_compile.py tools/bench/test_bench_shard.py tools/bench/test_bench_shard_upstream.py tools/bench/test_gen_module.py tools/bench/test_bench_lazy.py tools/bench/test_bench_matmul.py frontend/tests

bench: build-release bench-deps
	$(PYTHON) tools/bench/bench_ir.py --xcs-opt target/release/xcs-opt --mlir-opt $(LLVM_BIN)/mlir-opt --json target/bench/results.json
	$(PYTHON) tools/bench/bench_classify.py --xcs-opt target/release/xcs-opt --instructions --json target/bench/classify.json
	$(PYTHON) tools/bench/bench_vmap_batch.py --xcs-opt target/release/xcs-opt --json target/bench/vmap_batch.json
	$(PYTHON) tools/bench/bench_cost.py --xcs-opt target/release/xcs-opt --xcs-cost target/release/xcs-cost --json target/bench/cost.json
	$(PYTHON) tools/bench/bench_auto_shard.py --xcs-opt target/release/xcs-opt --json target/bench/auto_shard.json
	$(PYTHON) tools/bench/bench_native.py --xcs-run $(BENCH_XCS_RUN) --repeat 3 --json target/bench/native.json
	$(PYTHON) tools/bench/bench_matmul.py --json target/bench/matmul.json
	$(PYTHON) tools/bench/bench_workload_ir.py --xcs-run $(BENCH_XCS_RUN) --json target/bench/workload_ir.json
	$(PYTHON) tools/bench/bench_compile.py --xcs-run target/release/xcs-run --skip-python --json target/bench/compile.json
	$(PYTHON) tools/bench/bench_mlir_backend.py --xcs-run $(BENCH_XCS_RUN) --json target/bench/mlir_backend.json
	$(PYTHON) tools/bench/bench_shard_upstream.py --xcs-opt target/release/xcs-opt --json target/bench/shard_upstream.json
	$(PYTHON) tools/bench/bench_shard.py --xcs-run target/release/xcs-run --xcs-opt target/release/xcs-opt --json target/bench/shard.json
	$(MAKE) bench-frontend
	$(PYTHON) tools/bench/bench_lazy.py --json target/bench/lazy.json
	$(PYTHON) tools/bench/bench_jax_import.py --json target/bench/jax_import.json

# the Python frontend (release build of the extension) vs jax.jit and xcs-run --bench; seed 002's attention
# workload (@xcs.kernel over parallel_for grids) vs one xcs.jit function vs numpy at 1 and 2 threads
bench-frontend: build-release bench-deps
	@rm -rf $(WHEEL_DIR)
	$(PYTHON) -m maturin build --quiet --release --auditwheel skip --manifest-path frontend/Cargo.toml -o $(WHEEL_DIR)
	$(PYTHON) -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps $(WHEEL_DIR)/xcs-*.whl
	$(PYTHON) tools/bench/bench_frontend.py --xcs-run target/release/xcs-run --json target/bench/frontend.json
	$(PYTHON) tools/bench/bench_workload.py --json target/bench/workload.json
	$(PYTHON) tools/bench/bench_compile.py --xcs-run target/release/xcs-run --skip-xcs-run --json target/bench/compile_frontend.json

# jax (XLA CPU) is the benchmarks' peer (make test's from_jax tests get it from requirements.txt); threadpoolctl
# reports the BLAS kernel numpy runs, and jemalloc keeps the peers' freed memory mapped (their
# best: issue 22)
bench-deps: deps
	@$(PYTHON) -c 'import jax' 2>/dev/null || $(PYTHON) -m pip install --quiet --disable-pip-version-check jax==0.10.2
	@$(PYTHON) -c 'import threadpoolctl' 2>/dev/null || $(PYTHON) -m pip install --quiet --disable-pip-version-check threadpoolctl
	@if ! ls /usr/lib/*/libjemalloc.so.2 /usr/lib*/libjemalloc.so.2 >/dev/null 2>&1; then \
	  echo "== installing libjemalloc2 from Debian"; \
	  $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y libjemalloc2; \
	fi

# the LLVM backend (xcs-run) vs numpy and jax.jit at 1 and 2 threads, STREAM and peak FMA roofs
bench-native: build-release bench-deps
	$(PYTHON) tools/bench/bench_native.py --xcs-run $(BENCH_XCS_RUN) --repeat 3 --json target/bench/native.json

# the f32 matmul library vs numpy's OpenBLAS alternating in one process, at 1 and 2 threads
bench-matmul: deps
	$(PYTHON) tools/bench/bench_matmul.py --json target/bench/matmul.json

fuzz: deps
	command -v cargo-fuzz >/dev/null || $(CARGO) install cargo-fuzz
	mkdir -p ir/fuzz/corpus/parse_verify
	cd ir/fuzz && RUSTC_BOOTSTRAP=1 $(CARGO) fuzz run parse_verify corpus/parse_verify seeds -- -max_total_time=$(FUZZ_SECONDS)

# every f32 in [-2^22, 2^22] through the compiled sin, cos and erf kernels, against libm's double
# results (worst ulp per function; fails above 2 ulp). About 2 CPU-minutes for the 3 x 2.6e9 arguments.
MATH_ULP_DIR := target/math_ulp
check-math-ulp: build-release
	@mkdir -p $(MATH_ULP_DIR)
	target/release/xcs-translate tools/math_ulp/math.mlir --emit=shared-lib -o $(MATH_ULP_DIR)/libmath_kernels.so
	$(CC) -O2 -o $(MATH_ULP_DIR)/math_ulp tools/math_ulp/math_ulp.c -I$(MATH_ULP_DIR) -L$(MATH_ULP_DIR) -lmath_kernels -Wl,-rpath,$(CURDIR)/$(MATH_ULP_DIR) -lm
	$(MATH_ULP_DIR)/math_ulp

# the differential pass fuzzer (tools/tests/pass_fuzz.rs) on new seeds for FUZZ_SECONDS, in release
# mode; findings go to target/pass-fuzz/seed-N.txt (make test runs its fixed seeds)
fuzz-passes: deps
	XCS_FUZZ_SECONDS=$(FUZZ_SECONDS) $(CARGO) test --release -p xcs --test pass_fuzz fuzz_for_a_while -- --ignored --nocapture

# regenerate the reference pages from the op declarations and the pass registry
docs: build
	$(XCS_OPT) --gen-dialect-docs=docs/dialects
	$(XCS_OPT) --gen-pass-docs=docs/passes.md

clean:
	$(CARGO) clean
	rm -f .deps-stamp
