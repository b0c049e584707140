//! Tests of the passes on programs of the `test` dialect (its folders, pattern, effects, regions
//! and symbols exercise what the passes must respect), built with `xcs_test_support::builder`.
//! An integration test, so it links the one `xcs-passes` that `xcs-test-support` links too;
//! one binary for all of them.

mod canonicalize;
mod cse;
mod dce;
mod inline;
mod pipelines;
mod symbol_dce;
