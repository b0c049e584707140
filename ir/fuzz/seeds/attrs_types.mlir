// Aliases, attribute and type kinds, locations.
#map_like = {scale = 2.5 : f32, names = ["a", "b"]}
!vec = tensor<?x4xbf16>
"xt.attrs"() {arr = array<i64: 1, 0, -3>, f = array<f32: 1.0, 2.5>, d = {nested = {x = 1 : i8}},
  s = "esc\\aped\n", u, t = i1, ty = tensor<2x?xf16>, ref = @sym::@inner, b = true,
  i = -7 : i64, idx = 3 : index, flt = 1.0e-05 : f64, al = #map_like, hex = 0x1F : i32,
  e = dense<> : tensor<0xi32>, splat = dense<true> : tensor<3xi1>, none = unit} : () -> () loc("model.py":12:3)
"xt.use"() : () -> !vec loc(fused["a.py":1:2, unknown])
"xt.types"() : () -> (i1, i8, i16, i32, i64, index, f16, bf16, f32, f64, none, tensor<*xf32>, (i32) -> (), tensor<1x2x3xi64>, !xt.opaque<"x">)
