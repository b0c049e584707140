//! `print_module_to` writes the module in pieces between top-level ops; its output must be
//! byte-identical to `print_module`'s for modules far larger than one piece (of test-dialect
//! ops).

use xcs_ir::printer::{print_module, print_module_to, PrintOptions};

fn big_module(funcs: usize) -> String {
    let mut s = String::new();
    for f in 0..funcs {
        s.push_str(&format!("func.func @f{f}(%a: i64, %b: i64) -> i64 {{\n"));
        s.push_str("  %c = test.constant {value = 3 : i64} : i64\n  %x0 = test.addi %a, %b : i64\n");
        for i in 1..40 {
            s.push_str(&format!("  %x{i} = test.muli %x{}, %c : i64\n", i - 1));
        }
        s.push_str("  return %x39 : i64\n}\n");
    }
    s
}

#[test]
fn streamed_output_equals_whole_output() {
    let xcs = xcs_test_support::compiler();
    let module = xcs.parse(&big_module(2000)).expect("parses");
    for generic in [false, true] {
        let opts = PrintOptions { generic, ..Default::default() };
        let whole = print_module(&xcs.ctx, &module, &opts);
        assert!(whole.len() > 2 << 20, "the module must span several pieces ({} bytes)", whole.len());
        let buf = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl std::io::Write for Shared {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        print_module_to(&xcs.ctx, &module, &opts, Box::new(Shared(buf.clone()))).expect("prints");
        let streamed = String::from_utf8(buf.lock().unwrap().clone()).unwrap();
        assert!(streamed == whole, "streamed output differs (generic = {generic})");
    }
}

#[test]
fn failing_writer_reports_the_error() {
    struct Broken;
    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let xcs = xcs_test_support::compiler();
    let module = xcs.parse(&big_module(300)).expect("parses");
    let err = print_module_to(&xcs.ctx, &module, &PrintOptions::default(), Box::new(Broken)).err().expect("an error");
    assert_eq!(err.to_string(), "disk full");
}
