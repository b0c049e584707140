//! The pass manager: textual pipelines, nesting, parallel function passes, instrumentation.
