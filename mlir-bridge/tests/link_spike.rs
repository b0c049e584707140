use xcs_dialects::interp::{RtValue, Tensor, TensorData};
#[test]
fn both_llvms_in_one_process() {
    assert_eq!(xcs_mlir::run_add(1.5, 2.0).unwrap(), 3.5);
    let mut ctx = xcs_ir::Context::new();
    xcs_dialects::register_all(&mut ctx);
    xcs_lowering::attach_interfaces(&mut ctx);
    let m = xcs_ir::parser::parse_module(&ctx, "func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n %y = tensor.add %x, %x : tensor<2xf32>\n return %y : tensor<2xf32>\n}", "t.mlir", &Default::default()).unwrap();
    let jit = xcs_lowering::Jit::new(&ctx, &m, xcs_lowering::Options::host());
    let args = vec![RtValue::Tensor(Tensor::new(vec![2], TensorData::F32(vec![1.0, 2.0])).unwrap())];
    let c = jit.compile_for("f", &args).unwrap();
    let r = c.run(&c.inputs(&args).unwrap()).unwrap();
    println!("{:?}", r.len());
    assert_eq!(xcs_mlir::run_add(1.0, 2.0).unwrap(), 3.0);
}
