// Unregistered dialects without --allow-unregistered-dialect, and unknown ops of registered
// dialects or custom forms of unknown dialects (rejected even with the flag). Messages as
// mlir-opt words them.
// RUN: xcs-test-opt --split-input-file --verify-diagnostics %s
// RUN: not xcs-test-opt --allow-unregistered-dialect --split-input-file %s 2>&1 | FileCheck %s --check-prefix=ALLOW
// RUN: not mlir-opt --allow-unregistered-dialect --split-input-file %s 2>&1 | FileCheck %s --check-prefix=ALLOW

// ALLOW-NOT: error:
// expected-error@+1 {{operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used}}
"foo.op"() : () -> ()

// -----

// expected-error@+1 {{`!"foo"<"type">` type created with unregistered dialect. If this is intended, please call allowUnregisteredDialects() on the MLIRContext, or use -allow-unregistered-dialect with the MLIR opt tool used}}
"test.pure"() : () -> !foo.type

// -----

// expected-error@+1 {{#"foo"<"attr"> : 'none' attribute created with unregistered dialect.}}
"test.pure"() {a = #foo.attr} : () -> ()

// -----

// ALLOW: [[@LINE+3]]:1: error: Dialect `foo' not found for custom op 'foo.op'
// expected-error@+2 {{Dialect `foo' not found for custom op 'foo.op'}}
// expected-note@+1 {{Available dialects: builtin, }}
foo.op

// -----

// ALLOW-NOT: error:
// ALLOW: [[@LINE+2]]:1: error: unregistered operation 'func.bogus' found in dialect ('func') that does not allow unknown operations
// expected-error@+1 {{unregistered operation 'func.bogus' found in dialect ('func') that does not allow unknown operations}}
"func.bogus"() : () -> ()
