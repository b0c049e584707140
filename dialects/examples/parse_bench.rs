//! Times `parse_module` on a file: `cargo run --release -p xcs-dialects --example parse_bench -- FILE`.
//! Prints the parse time, op count and body memory (all dialects registered, unregistered
//! dialects allowed).

use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: parse_bench FILE [REPEAT]");
    let repeat: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let t0 = Instant::now();
    let src = std::fs::read(&path).expect("read");
    let read = t0.elapsed();
    let ctx = xcs_dialects::context();
    let opts = xcs_ir::parser::ParseOptions { allow_unregistered: true, line_offset: 0, col_offset: 0, ..Default::default() };
    for _ in 0..repeat {
        let t = Instant::now();
        let m = match xcs_ir::parser::parse_module_bytes(&ctx, &src, &path, &opts) {
            Ok(m) => m,
            Err(d) => {
                eprintln!("error: {} at {:?}", d.message, ctx.loc_file_line_col(d.loc).map(|x| (x.1, x.2)));
                std::process::exit(1);
            }
        };
        let dt = t.elapsed();
        let n = m.num_ops();
        println!(
            "read {:.3}s  parse {:.3}s  {} ops  {:.2} Mops/s  {:.1} MB/s  body {} MB",
            read.as_secs_f64(),
            dt.as_secs_f64(),
            n,
            n as f64 / dt.as_secs_f64() / 1e6,
            src.len() as f64 / dt.as_secs_f64() / 1e6,
            m.body.memory_bytes() >> 20
        );
        let t = Instant::now();
        drop(m);
        println!("drop {:.3}s", t.elapsed().as_secs_f64());
    }
}
