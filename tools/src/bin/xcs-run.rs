//! `xcs-run`: run a function of an XCS module on the reference interpreter (see `xcs::run`).
fn main() {
    std::process::exit(xcs::run::main(std::env::args_os()));
}
