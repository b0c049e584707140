// String attributes: escapes (printed as MLIR does: \22 \0A \09 \\, non-printable and
// non-ASCII bytes as \XX), typed strings, quoted dictionary keys and symbol names.
// RUN: %roundtrip
// RUN: FileCheck %s < %t.xcs

// CHECK: "test.pure"() {a = "", b = "hello", c = "esc\0A\09\22\\\01\FF", d = "typed" : i32, e = "utf8 \C3\A9 \E2\9C\93", f = "\00", g = "tab\09end", h = "#{}<>[]()"}
"test.pure"() {a = "", b = "hello", c = "esc\n\t\"\\\01\ff", d = "typed" : i32, e = "utf8 é ✓", f = "\00", g = "tab	end", h = "#{}<>[]()"} : () -> ()
// Keys print sorted; a unit attribute prints as its key alone.
// CHECK-NEXT: "test.pure"() {Z, _, "a b" = 2 : i64, plain = "x" : !unknown.str, "q\22"}
"test.pure"() {"a b" = 2, plain = "x" : !unknown.str, "q\"", "Z", _ = unit} : () -> ()
// Op names are strings too.
// CHECK-NEXT: "unknown x.y\22z"() : () -> ()
"unknown x.y\"z"() : () -> ()
// CHECK-NEXT: "test.pure"() {a = @"with space", b = @"q\22"::@r, c = @"\00"}
"test.pure"() {a = @"with space", b = @"q\""::@"r", c = @"\00"} : () -> ()
