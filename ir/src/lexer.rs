//! The MLIR token set, lexed with logos.
