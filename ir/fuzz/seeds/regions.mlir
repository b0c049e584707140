// Region ops of the test dialect: SSACFG, graph and isolated regions, symbol tables.
module {
  func.func @r(%a: i32) -> i32 {
    %0 = test.region %a : i32 {
    ^bb0(%x: i32):
      %1 = test.addi %x, %a : i32
      test.yield %1 : i32
    }
    test.graph : () -> () {
      %2 = test.pure %3 : i32
      %3 = test.pure %2 : i32
    }
    test.isolated : () -> () {
      %c = test.constant {value = 1 : i32} : i32
    }
    test.symbol_user {symbol = @r}
    return %0 : i32
  }
  test.symbol_table {sym_name = "t"} : () -> () {
    test.symbol {sym_name = "inner"}
  }
}
