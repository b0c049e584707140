//! Comparing runs: numpy's `allclose` for tensors ([`Tensor::allclose`]) and runtime values
//! ([`RtValue::allclose`]), as the tools and tests compare the interpreter with compiled code
//! or with numpy. A mismatch is described with the element as numpy prints it.

use std::sync::Arc;

use super::format::element_string;
use super::value::{RtValue, Tensor};

impl Tensor {
    /// numpy's `allclose` with `equal_nan=True` (`|a - b| <= atol + rtol * |b|`), for comparing
    /// runs; integers, i1 and strings must be equal. Returns a description of the first mismatch.
    pub fn allclose(&self, expected: &Tensor, rtol: f64, atol: f64) -> Result<(), String> {
        if self.shape != expected.shape || self.elem() != expected.elem() {
            return Err(format!(
                "got a {}, expected a {}",
                self.type_string(),
                expected.type_string()
            ));
        }
        if !self.elem().is_float() {
            if self.data != expected.data {
                let i = (0..self.numel())
                    .find(|&i| self.data.take(&[i]) != expected.data.take(&[i]))
                    .unwrap_or(0);
                return Err(format!(
                    "element {i} differs: got {}, expected {}",
                    element_string(&self.data, i),
                    element_string(&expected.data, i)
                ));
            }
            return Ok(());
        }
        let (a, b) = (
            self.data.to_f64s().unwrap_or_default(),
            expected.data.to_f64s().unwrap_or_default(),
        );
        for (i, (&x, &y)) in a.iter().zip(&b).enumerate() {
            let ok = (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= atol + rtol * y.abs();
            if !ok {
                return Err(format!(
                    "element {i} differs: got {x}, expected {y} (rtol {rtol}, atol {atol})"
                ));
            }
        }
        Ok(())
    }
}

impl RtValue {
    /// Compares with an expected value: tensors with [`Tensor::allclose`], everything else
    /// exactly (`!xcs.any` values by identity).
    pub fn allclose(&self, expected: &RtValue, rtol: f64, atol: f64) -> Result<(), String> {
        match (self, expected) {
            (RtValue::Tensor(a), RtValue::Tensor(b)) => a.allclose(b, rtol, atol),
            (RtValue::Str(a), RtValue::Str(b)) if a == b => Ok(()),
            (RtValue::Scalar(a), RtValue::Scalar(b)) if a == b => Ok(()),
            (RtValue::Any(a), RtValue::Any(b)) if Arc::ptr_eq(&a.0, &b.0) => Ok(()),
            (RtValue::Func(a), RtValue::Func(b)) if a == b => Ok(()),
            _ => Err(format!("got {self}, expected {expected}")),
        }
    }
}
