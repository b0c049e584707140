// --help and --version print to stdout and exit 0; an unknown flag is an error (exit 1).
// RUN: xcs-opt --help | FileCheck %s --check-prefix=HELP
// RUN: xcs-opt --version | FileCheck %s --check-prefix=VERSION
// RUN: not xcs-opt --no-such-flag %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: xcs-opt --no-such-flag %s >/dev/null 2>&1; test $? -eq 1
// RUN: not xcs-opt -no-such-flag %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: xcs-opt %s --show-dialects | FileCheck %s --check-prefix=DIALECTS
// RUN: xcs-test-opt %s --show-dialects | FileCheck %s --check-prefix=TEST-DIALECTS

// HELP: Usage: xcs-opt [OPTIONS] [input]
// HELP: -o <output>
// HELP: -p, --pass-pipeline <pass-pipeline>
// HELP: --mlir-print-debuginfo
// HELP: --mlir-print-local-scope
// HELP: --split-input-file
// HELP: --verify-diagnostics
// HELP: --verify-each
// HELP: --mlir-disable-threading
// HELP: --mlir-print-ir-before <mlir-print-ir-before>
// HELP: --mlir-print-ir-after-all
// HELP: --mlir-timing
// HELP: --list-passes
// HELP: --dump-pass-pipeline
// HELP: --show-dialects
// HELP: --gen-dialect-docs <DIR>
// HELP: Passes:
// HELP: --canonicalize[=<pass:canonicalize>]
// HELP-NEXT: Canonicalize operations
// HELP: --cse[=<pass:cse>]
// HELP-NEXT: Eliminate common sub-expressions
// HELP: --symbol-dce

// VERSION: xcs-opt {{[0-9]+\.[0-9]+\.[0-9]+}}

// UNKNOWN: error: unexpected argument '--no-such-flag' found

// The test dialect only in xcs-test-opt.
// DIALECTS: Available Dialects: builtin,cf,chlo,cost,func,sdy,shard,stablehlo,tensor,xcs{{$}}
// TEST-DIALECTS: Available Dialects: builtin,cf,chlo,cost,func,{{.*}}test{{.*}}
