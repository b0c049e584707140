// Malformed pipelines, unknown passes and options: the messages are mlir-opt's, the exit
// code is 1 (checked with `test $? -eq 1`: `not` would also accept a crash).
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(nonexistent-pass)' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: xcs-opt %s --pass-pipeline='builtin.module(nonexistent-pass)' >/dev/null 2>&1; test $? -eq 1
// RUN: not xcs-opt %s --pass-pipeline='cse' 2>&1 | FileCheck %s --check-prefix=WRAP
// RUN: not xcs-opt %s --pass-pipeline='' 2>&1 | FileCheck %s --check-prefix=WRAP
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(cse)garbage' 2>&1 | FileCheck %s --check-prefix=WRAP
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(cse))' 2>&1 | FileCheck %s --check-prefix=EXTRA
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(func.func(cse)' 2>&1 | FileCheck %s --check-prefix=UNBALANCED
// RUN: xcs-opt %s --pass-pipeline='builtin.module(func.func(cse)' >/dev/null 2>&1; test $? -eq 1
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=3)' 2>&1 | FileCheck %s --check-prefix=BRACE
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(func.func(cse)cse)' 2>&1 | FileCheck %s --check-prefix=COMMA
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(cse,)' 2>&1 | FileCheck %s --check-prefix=TRAILING
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(,cse)' 2>&1 | FileCheck %s --check-prefix=LEADING
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(func.func())' 2>&1 | FileCheck %s --check-prefix=EMPTYNESTED
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(canonicalize{foo=1})' 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(cse{foo=1})' 2>&1 | FileCheck %s --check-prefix=CSEOPTION
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=abc})' 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations})' 2>&1 | FileCheck %s --check-prefix=NOVALUE
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(canonicalize{region-simplify=sometimes})' 2>&1 | FileCheck %s --check-prefix=ENUM
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(canonicalize{test-convergence=maybe})' 2>&1 | FileCheck %s --check-prefix=BOOL
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(inline{default-pipeline=bogus})' 2>&1 | FileCheck %s --check-prefix=INNER
// RUN: not xcs-opt %s --pass-pipeline='func.func(cse)' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(func.func(symbol-dce))' 2>&1 | FileCheck %s --check-prefix=TABLE
// Per-pass flags: bad options, and mixing them with --pass-pipeline.
// RUN: not xcs-opt %s --canonicalize=foo=1 2>&1 | FileCheck %s --check-prefix=FLAGOPTION
// RUN: not xcs-opt %s --canonicalize=max-iterations=x 2>&1 | FileCheck %s --check-prefix=FLAGVALUE
// RUN: not xcs-opt %s --cse --pass-pipeline='builtin.module(cse)' 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: xcs-opt %s --cse --pass-pipeline='builtin.module(cse)' >/dev/null 2>&1; test $? -eq 1
// RUN: not xcs-opt %s --nonexistent-pass 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not xcs-opt %s --cse --mlir-print-ir-after=nonexistent 2>&1 | FileCheck %s --check-prefix=PRINTAFTER
// RUN: not xcs-opt %s --cse --mlir-print-ir-before=nonexistent 2>&1 | FileCheck %s --check-prefix=PRINTBEFORE

// UNKNOWN: MLIR Textual PassPipeline Parser:1:16: error: 'nonexistent-pass' does not refer to a registered pass or pass pipeline
// UNKNOWN-NEXT: builtin.module(nonexistent-pass)
// UNKNOWN-NEXT: {{^               \^$}}
// WRAP: <unknown>:0: error: expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'
// EXTRA: MLIR Textual PassPipeline Parser:1:19: error: encountered extra closing ')' creating unbalanced parentheses while parsing pipeline
// UNBALANCED: MLIR Textual PassPipeline Parser:1:25: error: encountered unbalanced parentheses while parsing pipeline
// BRACE: MLIR Textual PassPipeline Parser:1:28: error: missing closing '}' while processing pass options
// COMMA: MLIR Textual PassPipeline Parser:1:30: error: expected ',' after parsing pipeline
// TRAILING: MLIR Textual PassPipeline Parser:1:20: error: '' does not refer to a registered pass or pass pipeline
// LEADING: MLIR Textual PassPipeline Parser:1:16: error: '' does not refer to a registered pass or pass pipeline
// EMPTYNESTED: MLIR Textual PassPipeline Parser:1:26: error: '' does not refer to a registered pass or pass pipeline
// OPTION: error: failed to add `canonicalize` with options `foo=1`: no such option foo
// CSEOPTION: error: failed to add `cse` with options `foo=1`: no such option foo
// VALUE: error: failed to add `canonicalize` with options `max-iterations=abc`: for the --max-iterations option: 'abc' value invalid for long argument!
// NOVALUE: for the --max-iterations option: requires a value!
// ENUM: for the --region-simplify option: Cannot find option named 'sometimes'!
// BOOL: for the --test-convergence option: 'maybe' is invalid value for boolean argument! Try 0 or 1
// INNER: failed to add `inline` with options `default-pipeline=bogus`: 'bogus' does not refer to a registered pass or pass pipeline
// ANCHOR: pipeline-errors.mlir:0:0: error: can't run 'func.func' pass manager on 'builtin.module' op
// TABLE: pipeline-errors.mlir:[[@LINE+7]]:1: error: 'func.func' op  was scheduled to run under SymbolDCE, but does not define a symbol table
// FLAGOPTION: <unknown>:0: error: failed to add `canonicalize` with options `foo=1`: no such option foo
// FLAGVALUE: for the --max-iterations option: 'x' value invalid for long argument!
// BOTH: '-pass-pipeline' option can't be used with individual pass options
// FLAG: error: unexpected argument '--nonexistent-pass' found
// PRINTAFTER: for the --mlir-print-ir-after option: Cannot find option named 'nonexistent'!
// PRINTBEFORE: for the --mlir-print-ir-before option: Cannot find option named 'nonexistent'!
func.func @f() {
  return
}
