# XCS: two commands do everything on a fresh Debian machine with the Rust toolchain.
#   make run    set up, build, run the example pipelines, then run the compiled program natively (LLVM JIT)
#   make test   set up, build, run every test (cargo tests, the lit suite, the interpreter vs numpy)
# Other targets: make bench (benchmarks; bench-native: the LLVM backend vs numpy and jax), make fuzz (fuzz the parser+verifier), make docs.

LLVM_BIN    ?= /usr/lib/llvm-22/bin
APT_PKGS    := llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libpolly-22-dev zlib1g-dev libzstd-dev
SUDO        := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
CARGO       ?= cargo
PYTHON      ?= python3
XCS_OPT     := target/debug/xcs-opt
XCS_RUN     := target/debug/xcs-run
EXAMPLE     ?= examples/pipeline.mlir
MLP_EXAMPLE ?= examples/mlp.mlir
MLP_PIPELINE ?= builtin.module(inline,func.func(canonicalize,cse,fuse),symbol-dce)
PIPELINE    ?= builtin.module(inline,func.func(canonicalize,cse),symbol-dce)
FUZZ_SECONDS ?= 600
XCS_RUN     ?= target/release/xcs-run

.PHONY: all deps build build-release run test test-cargo test-lit test-python bench bench-deps bench-native fuzz docs check-docs clean

all: build

# ---- set-up: Debian packages (LLVM/MLIR 22) and Python packages, installed only if missing
deps: .deps-stamp
.deps-stamp: Makefile requirements.txt
	@if [ ! -x $(LLVM_BIN)/FileCheck ] || [ ! -x $(LLVM_BIN)/mlir-minimal-opt ] || [ ! -x $(LLVM_BIN)/llvm-config ]; then \
	  echo "== installing LLVM/MLIR 22 from Debian"; \
	  $(SUDO) apt-get update && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y $(APT_PKGS); \
	fi
	@$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $@

build: deps
	$(CARGO) build --workspace --bins

build-release: deps
	$(CARGO) build --release --workspace --bins

# ---- the main job: the pipeline on the examples, then the optimized programs compiled through
# LLVM and run by xcs-run's JIT (the reference interpreter runs the tensor program too, to compare)
run: build
	@mkdir -p target/run
	@echo "== $(XCS_OPT) $(EXAMPLE) --pass-pipeline='$(PIPELINE)'"
	@$(XCS_OPT) $(EXAMPLE) --pass-pipeline='$(PIPELINE)' -o target/run/pipeline.opt.mlir
	@cat target/run/pipeline.opt.mlir
	@echo "== $(XCS_RUN) target/run/pipeline.opt.mlir --input 0=3 --input 1=4   (LLVM JIT)"
	@$(XCS_RUN) target/run/pipeline.opt.mlir --input 0=3 --input 1=4
	@echo "== $(XCS_OPT) $(MLP_EXAMPLE) --pass-pipeline='$(MLP_PIPELINE)'"
	@$(XCS_OPT) $(MLP_EXAMPLE) --pass-pipeline='$(MLP_PIPELINE)' -o target/run/mlp.opt.mlir
	@cat target/run/mlp.opt.mlir
	@echo "== $(XCS_RUN) target/run/mlp.opt.mlir --input x=random:1 --input w1=random:2 --input w2=random:3   (LLVM JIT)"
	@rm -rf target/run/jit target/run/interp
	@$(XCS_RUN) target/run/mlp.opt.mlir --input x=random:1 --input w1=random:2 --input w2=random:3
	@$(XCS_RUN) target/run/mlp.opt.mlir --input x=random:1 --input w1=random:2 --input w2=random:3 --output-dir target/run/jit
	@echo "== the same on the reference interpreter (--backend=interp), compared with numpy"
	@$(XCS_RUN) target/run/mlp.opt.mlir --backend=interp --input x=random:1 --input w1=random:2 --input w2=random:3 --output-dir target/run/interp
	@$(PYTHON) -c 'import numpy as np, pathlib, sys; fs = sorted(pathlib.Path("target/run/jit").glob("*.npy")); assert fs, "no outputs"; bad = [f.name for f in fs if not np.allclose(np.load(f), np.load("target/run/interp/" + f.name), rtol=1e-5, atol=1e-5)]; print("== the JIT and the interpreter agree (rtol 1e-5) on", ", ".join(f.name for f in fs)) if not bad else sys.exit("error: the JIT and the interpreter differ on " + ", ".join(bad))'
	@$(XCS_RUN) target/run/mlp.opt.mlir --input x=random:1 --input w1=random:2 --input w2=random:3 --bench 100

# ---- every test
test: test-cargo test-lit test-python

test-cargo: deps
	$(CARGO) test --workspace

test-lit: build
	$(LLVM_BIN)/lit -sv test

# the reference interpreter (xcs-run --interp) against numpy, the xcs-run command line, and the
# native benchmark harness (with a fake xcs-run)
test-python: build
	$(PYTHON) -m pytest -q -p no:cacheprovider test/interp tools/bench/test_bench_native.py

bench: build-release bench-deps
	$(PYTHON) tools/bench/bench_ir.py --xcs-opt target/release/xcs-opt --mlir-opt $(LLVM_BIN)/mlir-opt --json target/bench/results.json
	$(PYTHON) tools/bench/bench_classify.py --xcs-opt target/release/xcs-opt --instructions --json target/bench/classify.json
	$(PYTHON) tools/bench/bench_vmap_batch.py --xcs-opt target/release/xcs-opt --json target/bench/vmap_batch.json
	$(PYTHON) tools/bench/bench_cost.py --xcs-opt target/release/xcs-opt --xcs-cost target/release/xcs-cost --json target/bench/cost.json
	$(PYTHON) tools/bench/bench_native.py --xcs-run $(XCS_RUN) --json target/bench/native.json

# jax (XLA CPU) is a peer of the native benchmark only: make test never needs it
bench-deps: deps
	@$(PYTHON) -c 'import jax' 2>/dev/null || $(PYTHON) -m pip install --quiet --disable-pip-version-check jax

# the LLVM backend (xcs-run) vs numpy and jax.jit at 1 and 2 threads, STREAM and peak FMA roofs
bench-native: build-release bench-deps
	$(PYTHON) tools/bench/bench_native.py --xcs-run $(XCS_RUN) --json target/bench/native.json

fuzz: deps
	command -v cargo-fuzz >/dev/null || $(CARGO) install cargo-fuzz
	mkdir -p ir/fuzz/corpus/parse_verify
	cd ir/fuzz && RUSTC_BOOTSTRAP=1 $(CARGO) fuzz run parse_verify corpus/parse_verify seeds -- -max_total_time=$(FUZZ_SECONDS)

# regenerate the reference pages from the op declarations and the pass registry
docs: build
	$(XCS_OPT) --gen-dialect-docs=docs/dialects
	$(XCS_OPT) --gen-pass-docs=docs/passes.md

clean:
	$(CARGO) clean
	rm -f .deps-stamp
