// --verify-diagnostics: every designator form, notes, regexes; all matched, so exit 0 and
// nothing on stderr. The same file passes mlir-minimal-opt.
// RUN: xcs-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s 2>&1 > %t.out | count 0
// RUN: mlir-minimal-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s 2>&1 > %t.mlir.out | count 0
// Standard output: the chunks that parsed, joined by markers (failed chunks print nothing).
// RUN: diff %t.out %t.mlir.out

// On the same line (no designator).
"a.b"() : () -> !nope // expected-error {{undefined symbol alias id 'nope'}}

// -----

// @+N
// expected-error@+2 {{undefined symbol alias id 'nope'}}

"a.b"() : () -> !nope

// -----

"a.b"() : () -> !nope
// @-N
// expected-error@-2 {{undefined symbol alias id 'nope'}}

// -----

// @above: the closest line above that has no expectation (comments count).
"a.b"() : () -> !nope
// expected-error@above {{undefined symbol alias id 'nope'}}

// -----

// @below: the closest line below that has no expectation.
// expected-error@below {{undefined symbol alias id 'nope'}}
"a.b"() : () -> !nope

// -----

// A note of an error, matched on its own line.
%0 = "a.b"() : () -> i32 // expected-note {{previously defined here}}
%0 = "a.c"() : () -> i32 // expected-error {{redefinition of SSA value '%0'}}

// -----

// Substring match.
// expected-error@+1 {{alias id}}
"a.b"() : () -> !nope

// -----

// Regexes: in `-re` expectations, `{{...}}` parts are regexes, the rest is literal.
// expected-error-re@+1 {{undefined symbol alias id '{{[a-z]+}}'}}
"a.b"() : () -> !nope

// -----

// One diagnostic satisfies one expectation; equal expectations need equal diagnostics.
"a.b"(%x, %x) : (i32, i32) -> () // expected-error {{use of undeclared SSA value name}}
