//! Generates the parser of the symbolic cost formulas from `src/symbolic/grammar.lalrpop`
//! (LALRPOP, as the design names it) into `OUT_DIR`.

fn main() {
    lalrpop::Configuration::new()
        .use_cargo_dir_conventions()
        .emit_rerun_directives(true)
        .process()
        .expect("LALRPOP failed on src/symbolic/grammar.lalrpop");
}
