//! smoke
use xcs_dialects::interp::{random_input, Interpreter, RtValue};
use xcs_ir::parser::{parse_module, ParseOptions};

#[test]
fn smoke() {
    let ctx = xcs_dialects::context();
    let src = r#"
func.func @main(%x: tensor<4x3xf32>, %y: tensor<3xf32>) -> tensor<4x3xf32> {
  %a = tensor.add %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %b = tensor.exp %a : tensor<4x3xf32>
  return %b : tensor<4x3xf32>
}"#;
    let m = parse_module(&ctx, src, "t", &ParseOptions::default()).unwrap();
    let opts = xcs_lowering::Options::host();
    let l = xcs_lowering::lower_module(&ctx, &m, &opts, &xcs_lowering::Which::Public).unwrap();
    std::fs::write("/tmp/lt/smoke.ll", &l.ir).unwrap();
    let jit = xcs_lowering::Jit::new(&ctx, &m, opts);
    let args = vec![random_input(&ctx, ctx.tensor_type(&[4, 3], ctx.f32_type()), 1).unwrap(), random_input(&ctx, ctx.tensor_type(&[3], ctx.f32_type()), 2).unwrap()];
    let got = jit.call("main", &args).unwrap();
    let want = Interpreter::new(&ctx, &m).call("main", args.clone()).unwrap();
    match (&got[0], &want[0]) {
        (RtValue::Tensor(a), RtValue::Tensor(b)) => a.allclose(b, 1e-5, 0.0).unwrap(),
        _ => panic!(),
    }
}
