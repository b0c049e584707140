//! Fuzz target: arbitrary bytes -> parse -> verify -> print -> re-parse. A module that parses
//! and verifies must print (pretty and generic), and what is printed must parse, verify and
//! print back identically. Nothing may panic on any input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use xcs_ir::parser::{parse_module, ParseOptions};
use xcs_ir::printer::{print_module, PrintOptions};
use xcs_ir::verifier::verify_module;

fuzz_target!(|data: &[u8]| {
    // The low bit of the first byte toggles `--allow-unregistered-dialect`; the whole input is
    // the text (so seed files stay plain `.mlir`: `//...` or `module` allow unregistered ops,
    // `"builtin.module"`, `func.func` or a leading newline do not).
    let Some(&first) = data.first() else { return };
    let text = String::from_utf8_lossy(data);
    // every XCS dialect and the test dialect (the seeds use its region, symbol and verifier ops)
    let ctx = xcs_test_support::context();
    let opts = ParseOptions { allow_unregistered: first & 1 == 1, ..Default::default() };
    let Ok(module) = parse_module(&ctx, &text, "fuzz.mlir", &opts) else { return };
    if verify_module(&ctx, &module, false).is_err() {
        return;
    }
    for generic in [false, true] {
        let popts = PrintOptions { generic, ..Default::default() };
        let printed = print_module(&ctx, &module, &popts);
        let reparsed = match parse_module(&ctx, &printed, "printed.mlir", &opts) {
            Ok(m) => m,
            Err(d) => panic!("printed module does not parse (generic={generic}): {d:?}\n{printed}"),
        };
        if let Err(ds) = verify_module(&ctx, &reparsed, false) {
            panic!("printed module does not verify (generic={generic}): {ds:?}\n{printed}");
        }
        let again = print_module(&ctx, &reparsed, &popts);
        assert_eq!(printed, again, "print -> parse -> print is not a fixpoint (generic={generic})");
    }
});
