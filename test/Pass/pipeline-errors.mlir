// Malformed pipelines and options: the messages are mlir-opt's.
// REQUIRES: passes
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(nonexistent-pass)' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not xcs-opt %s --pass-pipeline='cse' 2>&1 | FileCheck %s --check-prefix=WRAP
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(cse))' 2>&1 | FileCheck %s --check-prefix=EXTRA
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(func.func(cse)' 2>&1 | FileCheck %s --check-prefix=UNBALANCED
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=3)' 2>&1 | FileCheck %s --check-prefix=BRACE
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(func.func(cse)cse)' 2>&1 | FileCheck %s --check-prefix=COMMA
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(canonicalize{foo=1})' 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=abc})' 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not xcs-opt %s --pass-pipeline='func.func(cse)' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// RUN: not xcs-opt %s --pass-pipeline='builtin.module(func.func(symbol-dce))' 2>&1 | FileCheck %s --check-prefix=TABLE

// UNKNOWN: 'nonexistent-pass' does not refer to a registered pass or pass pipeline
// WRAP: expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'
// EXTRA: encountered extra closing ')' creating unbalanced parentheses while parsing pipeline
// UNBALANCED: encountered unbalanced parentheses while parsing pipeline
// BRACE: missing closing '}' while processing pass options
// COMMA: expected ',' after parsing pipeline
// OPTION: no such option foo
// VALUE: for the --max-iterations option: 'abc' value invalid for long argument!
// ANCHOR: can't run 'func.func' pass manager on 'builtin.module' op
// TABLE: 'func.func' op  was scheduled to run under SymbolDCE, but does not define a symbol table

func.func @f() {
  return
}
