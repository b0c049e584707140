// The checked-in reference pages are exactly what the op declarations and the pass registry
// generate; after changing an op or a pass, run `make docs` and commit the pages.
// RUN: rm -rf %t && mkdir -p %t
// RUN: xcs-opt --gen-dialect-docs=%t/dialects
// RUN: diff -r %t/dialects %repo/docs/dialects
// RUN: xcs-opt --gen-pass-docs=%t/passes.md
// RUN: diff %t/passes.md %repo/docs/passes.md
