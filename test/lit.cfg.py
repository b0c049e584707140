# Configuration of the XCS lit suite: every *.mlir file under test/ with RUN lines.
# Tools: xcs-opt (and the other xcs-* tools) from XCS_BIN_DIR (default target/debug), and
# LLVM 22's FileCheck, not, count, mlir-opt and mlir-minimal-opt from LLVM_BIN_DIR.
import os

import lit.formats

config.name = "XCS"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
repo = os.path.dirname(config.test_source_root)

xcs_bin = os.environ.get("XCS_BIN_DIR", os.path.join(repo, "target", "debug"))
llvm_bin = os.environ.get("LLVM_BIN_DIR", "/usr/lib/llvm-22/bin")
for tool in ["xcs-opt", "xcs-run", "xcs-cost"]:
    if not os.path.exists(os.path.join(xcs_bin, tool)):
        lit_config.fatal(f"{tool} not found in {xcs_bin}; build it first (make build) or set XCS_BIN_DIR")

config.environment["PATH"] = os.pathsep.join([xcs_bin, llvm_bin, config.environment.get("PATH", "")])
config.environment["RUST_BACKTRACE"] = "0"
config.available_features.add("passes")
config.substitutions.append(("%xcs_bin", xcs_bin))
config.substitutions.append(("%repo", repo))
