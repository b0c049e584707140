# Configuration of the XCS lit suite: every *.mlir file under test/ with RUN lines (not test/lib/,
# the test-support crate's sources). Tools: xcs-opt (and the other xcs-* tools) from XCS_BIN_DIR
# (default target/debug), with xcs-test-opt / xcs-test-run (the same drivers with the `test`
# dialect and passes registered, for tests that use them), and LLVM 22's FileCheck, not, count,
# mlir-opt and mlir-minimal-opt from LLVM_BIN_DIR.
import os
import shutil
import sys

import lit.formats

config.name = "XCS"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lib"]
config.test_source_root = os.path.dirname(__file__)
repo = os.path.dirname(config.test_source_root)

xcs_bin = os.environ.get("XCS_BIN_DIR", os.path.join(repo, "target", "debug"))
llvm_bin = os.environ.get("LLVM_BIN_DIR", "/usr/lib/llvm-22/bin")
for tool in ["xcs-opt", "xcs-run", "xcs-translate", "xcs-cost", "xcs-test-opt", "xcs-test-run"]:
    if not os.path.exists(os.path.join(xcs_bin, tool)):
        lit_config.fatal(f"{tool} not found in {xcs_bin}; build it first (make build) or set XCS_BIN_DIR")

config.environment["PATH"] = os.pathsep.join([xcs_bin, llvm_bin, config.environment.get("PATH", "")])
config.environment["RUST_BACKTRACE"] = "0"
config.available_features.add("passes")
config.substitutions.append(("%xcs_bin", xcs_bin))
config.substitutions.append(("%repo", repo))
config.substitutions.append(("%xcs-translate", os.path.join(xcs_bin, "xcs-translate")))
config.substitutions.append(("%cc", os.environ.get("CC", "cc")))
# The Python with numpy (the one on PATH, as `make test-python` uses), not necessarily lit's.
config.substitutions.append(("%python", os.environ.get("PYTHON") or shutil.which("python3") or sys.executable))

# The C ABI tests build a program against the shared library; the leak check needs
# LeakSanitizer (gcc/clang -fsanitize=address).
if shutil.which(os.environ.get("CC", "cc")):
    config.available_features.add("cc")

# MPI (Debian's OpenMPI, which `make deps` installs): the tests run 4 ranks on this machine;
# as root OpenMPI needs --allow-run-as-root, and --oversubscribe lets 4 ranks share 2 cores.
if shutil.which("mpirun") and shutil.which("mpicc"):
    config.available_features.add("mpi")
    root = ["--allow-run-as-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    config.substitutions.append(("%mpirun", " ".join(["mpirun"] + root + ["--oversubscribe"])))
    config.substitutions.append(("%mpicc", "mpicc"))
