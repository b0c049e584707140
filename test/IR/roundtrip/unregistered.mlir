// Ops, types and attributes of unregistered dialects are kept as written under
// --allow-unregistered-dialect: opaque ops with their operands, results, successors,
// properties, regions and attributes; types and attributes as their text.
// RUN: %roundtrip
// RUN: FileCheck %s < %t.xcs

// CHECK: %[[T:.*]] = "foo.source"() {attr = #foo.thing<[1, 2], {k = "v"}>} : () -> !foo.type<42>
%0 = "foo.source"() {attr = #foo.thing<[1, 2], {k = "v"}>} : () -> !foo.type<42>
// CHECK-NEXT: "foo.sink"(%[[T]]) <{p = #foo<"opaque attr">}> : (!foo.type<42>) -> !foo<"opaque type">
%1 = "foo.sink"(%0) <{p = #foo<"opaque attr">}> : (!foo.type<42>) -> !foo<"opaque type">
// Dialect bodies keep nested brackets, strings with brackets and `->`.
// CHECK-NEXT: "foo.bodies"() {a = #foo.x<a -> b>, b = #foo<"x>">, c = #foo.y<"\"">, d = #foo.z<{x}>, e = #foo.w<(<[{}]>)>} : () -> (!foo.x<a -> b>, !foo.y<(i32) -> f32>)
%2:2 = "foo.bodies"() {a = #foo.x<a -> b>, b = #foo<"x>">, c = #foo.y<"\"">, d = #foo.z<{x}>, e = #foo.w<(<[{}]>)>} : () -> (!foo.x<a -> b>, !foo.y<(i32) -> f32>)
// Unregistered types inside builtin types and attributes.
// CHECK-NEXT: "foo.nested"() {t = tensor<2x!foo.elem>} : () -> (tuple<!foo.a, !foo.b>, () -> !foo.c, tensor<?x!foo.elem, #foo.enc>)
%3:3 = "foo.nested"() {t = tensor<2x!foo.elem>} : () -> (tuple<!foo.a, !foo.b>, () -> !foo.c, tensor<?x!foo.elem, #foo.enc>)
// An unregistered op of a registered dialect's namespace is rejected (see
// ../invalid/unregistered.mlir), but an unknown dialect's terminator-like op is just an op.
// CHECK-NEXT: "foo.return"() : () -> ()
"foo.return"() : () -> ()
// Ops without a dialect prefix.
// CHECK-NEXT: "nodialect"() : () -> ()
"nodialect"() : () -> ()
