//! Parses a file and prints it back (like `xcs-opt` without passes), for comparing with
//! mlir-opt: `roundtrip FILE [--generic] [--debuginfo] [--no-unregistered]`.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: roundtrip FILE [--generic] [--debuginfo]");
    let src = std::fs::read(path).expect("read");
    let ctx = xcs_dialects::context();
    let opts = xcs_ir::parser::ParseOptions {
        allow_unregistered: !args.iter().any(|a| a == "--no-unregistered"),
        ..Default::default()
    };
    match xcs_ir::parser::parse_module_bytes(&ctx, &src, path, &opts) {
        Ok(m) => {
            let po = xcs_ir::printer::PrintOptions {
                generic: args.iter().any(|a| a == "--generic"),
                debug_info: args.iter().any(|a| a == "--debuginfo"),
                ..Default::default()
            };
            print!("{}", xcs_ir::printer::print_module(&ctx, &m, &po));
        }
        Err(d) => {
            let (f, l, c) = ctx.loc_file_line_col(d.loc).unwrap_or((ctx.ident("?"), 0, 0));
            eprintln!("{}:{l}:{c}: error: {}", ctx.str(f), d.message);
            std::process::exit(1);
        }
    }
}
