//! XCS passes.
