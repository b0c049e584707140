//! XCS: the Rust API and the tools.
