// File metadata errors: what XCS could not print back (resources of a dialect it does not know
// or that has no resources) is an error located at the entry, worded as mlir-opt words it (the
// same file passes mlir-opt), with or without --allow-unregistered-dialect.
// RUN: xcs-opt --split-input-file --verify-diagnostics %s
// RUN: xcs-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s
// RUN: mlir-opt --split-input-file --verify-diagnostics %s
// RUN: mlir-opt --allow-unregistered-dialect --split-input-file --verify-diagnostics %s

{-#
  dialect_resources: {
    // expected-error@+1 {{dialect 'foo' is unknown}}
    foo: {
      k: "0x0100000001"
    }
  }
#-}

// -----

{-#
  dialect_resources: {
    func: {
      // expected-error@+1 {{unexpected 'resource' section for dialect 'func'}}
      k: "0x0100000001"
    }
  }
#-}

// -----

{-#
  dialect_resources: {
    builtin: {
      // expected-error@+1 {{expected hex string blob for key 'k'}}
      k: true
    }
  }
#-}

// -----

{-#
  dialect_resources: {
    builtin: {
      // expected-error@+1 {{expected hex string blob for key 'k'}}
      k: "0x0100000"
    }
  }
#-}

// -----

{-#
  dialect_resources: {
    builtin: {
      // expected-error@+1 {{expected hex string blob for key 'k' to encode alignment in first 4 bytes}}
      k: "0x0100"
    }
  }
#-}

// -----

{-#
  dialect_resources: {
    builtin: {
      // expected-error@+1 {{expected hex string blob for key 'k' to encode alignment in first 4 bytes, but got non-power-of-2 value: 3}}
      k: "0x0300000001"
    }
  }
#-}

// -----

{-#
  external_resources: {
    tool: {
      // expected-error@+1 {{expected string value for key 'k'}}
      k: 5
    }
  }
#-}

// -----

{-#
  // expected-error@+1 {{unknown key 'other_resources' in file metadata dictionary}}
  other_resources: {}
#-}

// -----

{-#
  dialect_resources: {
    builtin: {
      k: "0x0100000001"
    // expected-error@+1 {{expected ',' or '}'}}
    } x
  }
#-}
