// --gen-dialect-docs=DIR writes one Markdown page per dialect from the op declarations:
// builtin (for builtin.module) and func included, the internal test dialect not.
// RUN: rm -rf %t && xcs-opt --gen-dialect-docs=%t
// RUN: ls %t | FileCheck %s --check-prefix=FILES
// RUN: FileCheck %s --check-prefix=BUILTIN --input-file=%t/builtin.md
// RUN: FileCheck %s --check-prefix=FUNC --input-file=%t/func.md
// RUN: FileCheck %s --check-prefix=CF --input-file=%t/cf.md
// A directory that cannot be created is an error.
// RUN: not xcs-opt --gen-dialect-docs=%s/sub 2>&1 | FileCheck %s --check-prefix=ERR

// FILES:     builtin.md
// FILES:     cf.md
// FILES:     func.md
// FILES-NOT: test.md

// BUILTIN:      <!-- Generated from the op declarations by `xcs-opt --gen-dialect-docs=docs/dialects`; do not edit. -->
// BUILTIN:      # 'builtin' dialect
// BUILTIN:      ## Operations
// BUILTIN:      ### `builtin.module`
// BUILTIN:      Traits: IsolatedFromAbove, SymbolTable, NoTerminator, SingleBlock, GraphRegion
// BUILTIN:      | `sym_name` | optional | string attribute |

// Ops come in name order, as in MLIR's generated pages.
// FUNC:      # 'func' dialect
// FUNC:      ### `func.call`
// FUNC:      ### `func.func`
// FUNC:      Traits: IsolatedFromAbove, Symbol, FunctionLike
// FUNC:      | `function_type` | required | type attribute of function type |
// FUNC:      ### `func.return`
// FUNC:      Traits: Pure, Terminator, ReturnLike

// CF: ### `cf.br`
// CF: ### `cf.cond_br`

// ERR: cannot create '{{.*}}gen-dialect-docs.mlir/sub'
