// --mlir-timing: the report's structure (times are not checked): the parser, the verifier,
// the pipeline tree with each pass, the output, the rest and the total, as in mlir-opt.
// RUN: xcs-test-opt %s --pass-pipeline='builtin.module(func.func(cse,canonicalize),symbol-dce)' --mlir-timing -o /dev/null 2>&1 | FileCheck %s
// RUN: xcs-test-opt %s --pass-pipeline='builtin.module(func.func(cse,canonicalize),symbol-dce)' --mlir-timing --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s
// RUN: xcs-test-opt %s --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOPASS
// RUN: xcs-test-opt %s --cse -o /dev/null 2>&1 | count 0

// CHECK:      ===-------------------------------------------------------------------------===
// CHECK-NEXT:                          ... Execution time report ...
// CHECK-NEXT: ===-------------------------------------------------------------------------===
// CHECK-NEXT:   Total Execution Time: {{[0-9]+\.[0-9]+}} seconds
// CHECK-EMPTY:
// CHECK-NEXT:   ----Wall Time----  ----Name----
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)  Parser$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)  Verifier$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)  'func.func' Pipeline$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)    CSE$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)    Canonicalizer$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)  SymbolDCE$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)  Output$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]{4} \( *[0-9]+\.[0-9]%\)  Rest$}}
// CHECK-NEXT: {{^ +[0-9]+\.[0-9]{4} \(100\.0%\)  Total$}}
// CHECK-NOT:  {{.}}

// NOPASS:      ----Wall Time----  ----Name----
// NOPASS-NEXT: Parser
// NOPASS-NEXT: Verifier
// NOPASS-NEXT: Output
// NOPASS-NEXT: Rest
// NOPASS-NEXT: Total

func.func @f(%a: i32) -> i32 {
  %0 = test.addi %a, %a : i32
  return %0 : i32
}
func.func @g(%a: i32) -> i32 {
  return %a : i32
}
