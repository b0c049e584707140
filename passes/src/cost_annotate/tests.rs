//! Unit tests of cost-annotate.
