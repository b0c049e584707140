module {
  func.func @loop(%n: i32, %flag: i1) -> i32 {
    %zero = test.constant {value = 0 : i32} : i32
    cf.br ^head(%zero : i32)
  ^head(%i: i32):
    cf.cond_br %flag, ^body(%i : i32), ^exit(%i : i32)
  ^body(%j: i32):
    %k = test.addi %j, %n : i32
    cf.br ^head(%k : i32)
  ^exit(%r: i32):
    return %r : i32
  }
}
