// 120 functions with work for cse, canonicalize and the inliner (test/Pass/threading.mlir).
func.func private @helper0(%a: i32) -> i32 {
  %c0 = test.constant {value = 0 : i32} : i32
  %0 = test.addi %a, %c0 : i32
  return %0 : i32
}
func.func @f0(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper0(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper1(%a: i32) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.addi %a, %c1 : i32
  return %0 : i32
}
func.func @f1(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper1(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper2(%a: i32) -> i32 {
  %c2 = test.constant {value = 2 : i32} : i32
  %0 = test.addi %a, %c2 : i32
  return %0 : i32
}
func.func @f2(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper2(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper3(%a: i32) -> i32 {
  %c3 = test.constant {value = 3 : i32} : i32
  %0 = test.addi %a, %c3 : i32
  return %0 : i32
}
func.func @f3(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper3(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper4(%a: i32) -> i32 {
  %c4 = test.constant {value = 4 : i32} : i32
  %0 = test.addi %a, %c4 : i32
  return %0 : i32
}
func.func @f4(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper4(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper5(%a: i32) -> i32 {
  %c5 = test.constant {value = 5 : i32} : i32
  %0 = test.addi %a, %c5 : i32
  return %0 : i32
}
func.func @f5(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper5(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper6(%a: i32) -> i32 {
  %c6 = test.constant {value = 6 : i32} : i32
  %0 = test.addi %a, %c6 : i32
  return %0 : i32
}
func.func @f6(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper6(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper7(%a: i32) -> i32 {
  %c7 = test.constant {value = 7 : i32} : i32
  %0 = test.addi %a, %c7 : i32
  return %0 : i32
}
func.func @f7(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper7(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper8(%a: i32) -> i32 {
  %c8 = test.constant {value = 8 : i32} : i32
  %0 = test.addi %a, %c8 : i32
  return %0 : i32
}
func.func @f8(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper8(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper9(%a: i32) -> i32 {
  %c9 = test.constant {value = 9 : i32} : i32
  %0 = test.addi %a, %c9 : i32
  return %0 : i32
}
func.func @f9(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper9(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper10(%a: i32) -> i32 {
  %c10 = test.constant {value = 10 : i32} : i32
  %0 = test.addi %a, %c10 : i32
  return %0 : i32
}
func.func @f10(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper10(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper11(%a: i32) -> i32 {
  %c11 = test.constant {value = 11 : i32} : i32
  %0 = test.addi %a, %c11 : i32
  return %0 : i32
}
func.func @f11(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper11(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper12(%a: i32) -> i32 {
  %c12 = test.constant {value = 12 : i32} : i32
  %0 = test.addi %a, %c12 : i32
  return %0 : i32
}
func.func @f12(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper12(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper13(%a: i32) -> i32 {
  %c13 = test.constant {value = 13 : i32} : i32
  %0 = test.addi %a, %c13 : i32
  return %0 : i32
}
func.func @f13(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper13(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper14(%a: i32) -> i32 {
  %c14 = test.constant {value = 14 : i32} : i32
  %0 = test.addi %a, %c14 : i32
  return %0 : i32
}
func.func @f14(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper14(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper15(%a: i32) -> i32 {
  %c15 = test.constant {value = 15 : i32} : i32
  %0 = test.addi %a, %c15 : i32
  return %0 : i32
}
func.func @f15(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper15(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper16(%a: i32) -> i32 {
  %c16 = test.constant {value = 16 : i32} : i32
  %0 = test.addi %a, %c16 : i32
  return %0 : i32
}
func.func @f16(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper16(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper17(%a: i32) -> i32 {
  %c17 = test.constant {value = 17 : i32} : i32
  %0 = test.addi %a, %c17 : i32
  return %0 : i32
}
func.func @f17(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper17(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper18(%a: i32) -> i32 {
  %c18 = test.constant {value = 18 : i32} : i32
  %0 = test.addi %a, %c18 : i32
  return %0 : i32
}
func.func @f18(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper18(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper19(%a: i32) -> i32 {
  %c19 = test.constant {value = 19 : i32} : i32
  %0 = test.addi %a, %c19 : i32
  return %0 : i32
}
func.func @f19(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper19(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper20(%a: i32) -> i32 {
  %c20 = test.constant {value = 20 : i32} : i32
  %0 = test.addi %a, %c20 : i32
  return %0 : i32
}
func.func @f20(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper20(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper21(%a: i32) -> i32 {
  %c21 = test.constant {value = 21 : i32} : i32
  %0 = test.addi %a, %c21 : i32
  return %0 : i32
}
func.func @f21(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper21(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper22(%a: i32) -> i32 {
  %c22 = test.constant {value = 22 : i32} : i32
  %0 = test.addi %a, %c22 : i32
  return %0 : i32
}
func.func @f22(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper22(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper23(%a: i32) -> i32 {
  %c23 = test.constant {value = 23 : i32} : i32
  %0 = test.addi %a, %c23 : i32
  return %0 : i32
}
func.func @f23(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper23(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper24(%a: i32) -> i32 {
  %c24 = test.constant {value = 24 : i32} : i32
  %0 = test.addi %a, %c24 : i32
  return %0 : i32
}
func.func @f24(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper24(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper25(%a: i32) -> i32 {
  %c25 = test.constant {value = 25 : i32} : i32
  %0 = test.addi %a, %c25 : i32
  return %0 : i32
}
func.func @f25(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper25(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper26(%a: i32) -> i32 {
  %c26 = test.constant {value = 26 : i32} : i32
  %0 = test.addi %a, %c26 : i32
  return %0 : i32
}
func.func @f26(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper26(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper27(%a: i32) -> i32 {
  %c27 = test.constant {value = 27 : i32} : i32
  %0 = test.addi %a, %c27 : i32
  return %0 : i32
}
func.func @f27(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper27(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper28(%a: i32) -> i32 {
  %c28 = test.constant {value = 28 : i32} : i32
  %0 = test.addi %a, %c28 : i32
  return %0 : i32
}
func.func @f28(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper28(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper29(%a: i32) -> i32 {
  %c29 = test.constant {value = 29 : i32} : i32
  %0 = test.addi %a, %c29 : i32
  return %0 : i32
}
func.func @f29(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper29(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper30(%a: i32) -> i32 {
  %c30 = test.constant {value = 30 : i32} : i32
  %0 = test.addi %a, %c30 : i32
  return %0 : i32
}
func.func @f30(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper30(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper31(%a: i32) -> i32 {
  %c31 = test.constant {value = 31 : i32} : i32
  %0 = test.addi %a, %c31 : i32
  return %0 : i32
}
func.func @f31(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper31(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper32(%a: i32) -> i32 {
  %c32 = test.constant {value = 32 : i32} : i32
  %0 = test.addi %a, %c32 : i32
  return %0 : i32
}
func.func @f32(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper32(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper33(%a: i32) -> i32 {
  %c33 = test.constant {value = 33 : i32} : i32
  %0 = test.addi %a, %c33 : i32
  return %0 : i32
}
func.func @f33(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper33(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper34(%a: i32) -> i32 {
  %c34 = test.constant {value = 34 : i32} : i32
  %0 = test.addi %a, %c34 : i32
  return %0 : i32
}
func.func @f34(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper34(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper35(%a: i32) -> i32 {
  %c35 = test.constant {value = 35 : i32} : i32
  %0 = test.addi %a, %c35 : i32
  return %0 : i32
}
func.func @f35(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper35(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper36(%a: i32) -> i32 {
  %c36 = test.constant {value = 36 : i32} : i32
  %0 = test.addi %a, %c36 : i32
  return %0 : i32
}
func.func @f36(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper36(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper37(%a: i32) -> i32 {
  %c37 = test.constant {value = 37 : i32} : i32
  %0 = test.addi %a, %c37 : i32
  return %0 : i32
}
func.func @f37(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper37(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper38(%a: i32) -> i32 {
  %c38 = test.constant {value = 38 : i32} : i32
  %0 = test.addi %a, %c38 : i32
  return %0 : i32
}
func.func @f38(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper38(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper39(%a: i32) -> i32 {
  %c39 = test.constant {value = 39 : i32} : i32
  %0 = test.addi %a, %c39 : i32
  return %0 : i32
}
func.func @f39(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper39(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper40(%a: i32) -> i32 {
  %c40 = test.constant {value = 40 : i32} : i32
  %0 = test.addi %a, %c40 : i32
  return %0 : i32
}
func.func @f40(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper40(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper41(%a: i32) -> i32 {
  %c41 = test.constant {value = 41 : i32} : i32
  %0 = test.addi %a, %c41 : i32
  return %0 : i32
}
func.func @f41(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper41(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper42(%a: i32) -> i32 {
  %c42 = test.constant {value = 42 : i32} : i32
  %0 = test.addi %a, %c42 : i32
  return %0 : i32
}
func.func @f42(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper42(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper43(%a: i32) -> i32 {
  %c43 = test.constant {value = 43 : i32} : i32
  %0 = test.addi %a, %c43 : i32
  return %0 : i32
}
func.func @f43(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper43(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper44(%a: i32) -> i32 {
  %c44 = test.constant {value = 44 : i32} : i32
  %0 = test.addi %a, %c44 : i32
  return %0 : i32
}
func.func @f44(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper44(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper45(%a: i32) -> i32 {
  %c45 = test.constant {value = 45 : i32} : i32
  %0 = test.addi %a, %c45 : i32
  return %0 : i32
}
func.func @f45(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper45(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper46(%a: i32) -> i32 {
  %c46 = test.constant {value = 46 : i32} : i32
  %0 = test.addi %a, %c46 : i32
  return %0 : i32
}
func.func @f46(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper46(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper47(%a: i32) -> i32 {
  %c47 = test.constant {value = 47 : i32} : i32
  %0 = test.addi %a, %c47 : i32
  return %0 : i32
}
func.func @f47(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper47(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper48(%a: i32) -> i32 {
  %c48 = test.constant {value = 48 : i32} : i32
  %0 = test.addi %a, %c48 : i32
  return %0 : i32
}
func.func @f48(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper48(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper49(%a: i32) -> i32 {
  %c49 = test.constant {value = 49 : i32} : i32
  %0 = test.addi %a, %c49 : i32
  return %0 : i32
}
func.func @f49(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper49(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper50(%a: i32) -> i32 {
  %c50 = test.constant {value = 50 : i32} : i32
  %0 = test.addi %a, %c50 : i32
  return %0 : i32
}
func.func @f50(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper50(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper51(%a: i32) -> i32 {
  %c51 = test.constant {value = 51 : i32} : i32
  %0 = test.addi %a, %c51 : i32
  return %0 : i32
}
func.func @f51(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper51(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper52(%a: i32) -> i32 {
  %c52 = test.constant {value = 52 : i32} : i32
  %0 = test.addi %a, %c52 : i32
  return %0 : i32
}
func.func @f52(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper52(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper53(%a: i32) -> i32 {
  %c53 = test.constant {value = 53 : i32} : i32
  %0 = test.addi %a, %c53 : i32
  return %0 : i32
}
func.func @f53(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper53(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper54(%a: i32) -> i32 {
  %c54 = test.constant {value = 54 : i32} : i32
  %0 = test.addi %a, %c54 : i32
  return %0 : i32
}
func.func @f54(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper54(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper55(%a: i32) -> i32 {
  %c55 = test.constant {value = 55 : i32} : i32
  %0 = test.addi %a, %c55 : i32
  return %0 : i32
}
func.func @f55(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper55(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper56(%a: i32) -> i32 {
  %c56 = test.constant {value = 56 : i32} : i32
  %0 = test.addi %a, %c56 : i32
  return %0 : i32
}
func.func @f56(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper56(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper57(%a: i32) -> i32 {
  %c57 = test.constant {value = 57 : i32} : i32
  %0 = test.addi %a, %c57 : i32
  return %0 : i32
}
func.func @f57(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper57(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper58(%a: i32) -> i32 {
  %c58 = test.constant {value = 58 : i32} : i32
  %0 = test.addi %a, %c58 : i32
  return %0 : i32
}
func.func @f58(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper58(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper59(%a: i32) -> i32 {
  %c59 = test.constant {value = 59 : i32} : i32
  %0 = test.addi %a, %c59 : i32
  return %0 : i32
}
func.func @f59(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper59(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper60(%a: i32) -> i32 {
  %c60 = test.constant {value = 60 : i32} : i32
  %0 = test.addi %a, %c60 : i32
  return %0 : i32
}
func.func @f60(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper60(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper61(%a: i32) -> i32 {
  %c61 = test.constant {value = 61 : i32} : i32
  %0 = test.addi %a, %c61 : i32
  return %0 : i32
}
func.func @f61(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper61(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper62(%a: i32) -> i32 {
  %c62 = test.constant {value = 62 : i32} : i32
  %0 = test.addi %a, %c62 : i32
  return %0 : i32
}
func.func @f62(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper62(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper63(%a: i32) -> i32 {
  %c63 = test.constant {value = 63 : i32} : i32
  %0 = test.addi %a, %c63 : i32
  return %0 : i32
}
func.func @f63(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper63(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper64(%a: i32) -> i32 {
  %c64 = test.constant {value = 64 : i32} : i32
  %0 = test.addi %a, %c64 : i32
  return %0 : i32
}
func.func @f64(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper64(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper65(%a: i32) -> i32 {
  %c65 = test.constant {value = 65 : i32} : i32
  %0 = test.addi %a, %c65 : i32
  return %0 : i32
}
func.func @f65(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper65(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper66(%a: i32) -> i32 {
  %c66 = test.constant {value = 66 : i32} : i32
  %0 = test.addi %a, %c66 : i32
  return %0 : i32
}
func.func @f66(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper66(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper67(%a: i32) -> i32 {
  %c67 = test.constant {value = 67 : i32} : i32
  %0 = test.addi %a, %c67 : i32
  return %0 : i32
}
func.func @f67(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper67(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper68(%a: i32) -> i32 {
  %c68 = test.constant {value = 68 : i32} : i32
  %0 = test.addi %a, %c68 : i32
  return %0 : i32
}
func.func @f68(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper68(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper69(%a: i32) -> i32 {
  %c69 = test.constant {value = 69 : i32} : i32
  %0 = test.addi %a, %c69 : i32
  return %0 : i32
}
func.func @f69(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper69(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper70(%a: i32) -> i32 {
  %c70 = test.constant {value = 70 : i32} : i32
  %0 = test.addi %a, %c70 : i32
  return %0 : i32
}
func.func @f70(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper70(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper71(%a: i32) -> i32 {
  %c71 = test.constant {value = 71 : i32} : i32
  %0 = test.addi %a, %c71 : i32
  return %0 : i32
}
func.func @f71(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper71(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper72(%a: i32) -> i32 {
  %c72 = test.constant {value = 72 : i32} : i32
  %0 = test.addi %a, %c72 : i32
  return %0 : i32
}
func.func @f72(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper72(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper73(%a: i32) -> i32 {
  %c73 = test.constant {value = 73 : i32} : i32
  %0 = test.addi %a, %c73 : i32
  return %0 : i32
}
func.func @f73(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper73(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper74(%a: i32) -> i32 {
  %c74 = test.constant {value = 74 : i32} : i32
  %0 = test.addi %a, %c74 : i32
  return %0 : i32
}
func.func @f74(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper74(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper75(%a: i32) -> i32 {
  %c75 = test.constant {value = 75 : i32} : i32
  %0 = test.addi %a, %c75 : i32
  return %0 : i32
}
func.func @f75(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper75(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper76(%a: i32) -> i32 {
  %c76 = test.constant {value = 76 : i32} : i32
  %0 = test.addi %a, %c76 : i32
  return %0 : i32
}
func.func @f76(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper76(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper77(%a: i32) -> i32 {
  %c77 = test.constant {value = 77 : i32} : i32
  %0 = test.addi %a, %c77 : i32
  return %0 : i32
}
func.func @f77(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper77(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper78(%a: i32) -> i32 {
  %c78 = test.constant {value = 78 : i32} : i32
  %0 = test.addi %a, %c78 : i32
  return %0 : i32
}
func.func @f78(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper78(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper79(%a: i32) -> i32 {
  %c79 = test.constant {value = 79 : i32} : i32
  %0 = test.addi %a, %c79 : i32
  return %0 : i32
}
func.func @f79(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper79(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper80(%a: i32) -> i32 {
  %c80 = test.constant {value = 80 : i32} : i32
  %0 = test.addi %a, %c80 : i32
  return %0 : i32
}
func.func @f80(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper80(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper81(%a: i32) -> i32 {
  %c81 = test.constant {value = 81 : i32} : i32
  %0 = test.addi %a, %c81 : i32
  return %0 : i32
}
func.func @f81(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper81(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper82(%a: i32) -> i32 {
  %c82 = test.constant {value = 82 : i32} : i32
  %0 = test.addi %a, %c82 : i32
  return %0 : i32
}
func.func @f82(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper82(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper83(%a: i32) -> i32 {
  %c83 = test.constant {value = 83 : i32} : i32
  %0 = test.addi %a, %c83 : i32
  return %0 : i32
}
func.func @f83(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper83(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper84(%a: i32) -> i32 {
  %c84 = test.constant {value = 84 : i32} : i32
  %0 = test.addi %a, %c84 : i32
  return %0 : i32
}
func.func @f84(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper84(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper85(%a: i32) -> i32 {
  %c85 = test.constant {value = 85 : i32} : i32
  %0 = test.addi %a, %c85 : i32
  return %0 : i32
}
func.func @f85(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper85(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper86(%a: i32) -> i32 {
  %c86 = test.constant {value = 86 : i32} : i32
  %0 = test.addi %a, %c86 : i32
  return %0 : i32
}
func.func @f86(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper86(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper87(%a: i32) -> i32 {
  %c87 = test.constant {value = 87 : i32} : i32
  %0 = test.addi %a, %c87 : i32
  return %0 : i32
}
func.func @f87(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper87(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper88(%a: i32) -> i32 {
  %c88 = test.constant {value = 88 : i32} : i32
  %0 = test.addi %a, %c88 : i32
  return %0 : i32
}
func.func @f88(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper88(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper89(%a: i32) -> i32 {
  %c89 = test.constant {value = 89 : i32} : i32
  %0 = test.addi %a, %c89 : i32
  return %0 : i32
}
func.func @f89(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper89(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper90(%a: i32) -> i32 {
  %c90 = test.constant {value = 90 : i32} : i32
  %0 = test.addi %a, %c90 : i32
  return %0 : i32
}
func.func @f90(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper90(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper91(%a: i32) -> i32 {
  %c91 = test.constant {value = 91 : i32} : i32
  %0 = test.addi %a, %c91 : i32
  return %0 : i32
}
func.func @f91(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper91(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper92(%a: i32) -> i32 {
  %c92 = test.constant {value = 92 : i32} : i32
  %0 = test.addi %a, %c92 : i32
  return %0 : i32
}
func.func @f92(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper92(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper93(%a: i32) -> i32 {
  %c93 = test.constant {value = 93 : i32} : i32
  %0 = test.addi %a, %c93 : i32
  return %0 : i32
}
func.func @f93(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper93(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper94(%a: i32) -> i32 {
  %c94 = test.constant {value = 94 : i32} : i32
  %0 = test.addi %a, %c94 : i32
  return %0 : i32
}
func.func @f94(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper94(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper95(%a: i32) -> i32 {
  %c95 = test.constant {value = 95 : i32} : i32
  %0 = test.addi %a, %c95 : i32
  return %0 : i32
}
func.func @f95(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper95(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper96(%a: i32) -> i32 {
  %c96 = test.constant {value = 96 : i32} : i32
  %0 = test.addi %a, %c96 : i32
  return %0 : i32
}
func.func @f96(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper96(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper97(%a: i32) -> i32 {
  %c97 = test.constant {value = 97 : i32} : i32
  %0 = test.addi %a, %c97 : i32
  return %0 : i32
}
func.func @f97(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper97(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper98(%a: i32) -> i32 {
  %c98 = test.constant {value = 98 : i32} : i32
  %0 = test.addi %a, %c98 : i32
  return %0 : i32
}
func.func @f98(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper98(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper99(%a: i32) -> i32 {
  %c99 = test.constant {value = 99 : i32} : i32
  %0 = test.addi %a, %c99 : i32
  return %0 : i32
}
func.func @f99(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper99(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper100(%a: i32) -> i32 {
  %c100 = test.constant {value = 100 : i32} : i32
  %0 = test.addi %a, %c100 : i32
  return %0 : i32
}
func.func @f100(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper100(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper101(%a: i32) -> i32 {
  %c101 = test.constant {value = 101 : i32} : i32
  %0 = test.addi %a, %c101 : i32
  return %0 : i32
}
func.func @f101(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper101(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper102(%a: i32) -> i32 {
  %c102 = test.constant {value = 102 : i32} : i32
  %0 = test.addi %a, %c102 : i32
  return %0 : i32
}
func.func @f102(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper102(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper103(%a: i32) -> i32 {
  %c103 = test.constant {value = 103 : i32} : i32
  %0 = test.addi %a, %c103 : i32
  return %0 : i32
}
func.func @f103(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper103(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper104(%a: i32) -> i32 {
  %c104 = test.constant {value = 104 : i32} : i32
  %0 = test.addi %a, %c104 : i32
  return %0 : i32
}
func.func @f104(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper104(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper105(%a: i32) -> i32 {
  %c105 = test.constant {value = 105 : i32} : i32
  %0 = test.addi %a, %c105 : i32
  return %0 : i32
}
func.func @f105(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper105(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper106(%a: i32) -> i32 {
  %c106 = test.constant {value = 106 : i32} : i32
  %0 = test.addi %a, %c106 : i32
  return %0 : i32
}
func.func @f106(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper106(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper107(%a: i32) -> i32 {
  %c107 = test.constant {value = 107 : i32} : i32
  %0 = test.addi %a, %c107 : i32
  return %0 : i32
}
func.func @f107(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper107(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper108(%a: i32) -> i32 {
  %c108 = test.constant {value = 108 : i32} : i32
  %0 = test.addi %a, %c108 : i32
  return %0 : i32
}
func.func @f108(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper108(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper109(%a: i32) -> i32 {
  %c109 = test.constant {value = 109 : i32} : i32
  %0 = test.addi %a, %c109 : i32
  return %0 : i32
}
func.func @f109(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper109(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper110(%a: i32) -> i32 {
  %c110 = test.constant {value = 110 : i32} : i32
  %0 = test.addi %a, %c110 : i32
  return %0 : i32
}
func.func @f110(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper110(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper111(%a: i32) -> i32 {
  %c111 = test.constant {value = 111 : i32} : i32
  %0 = test.addi %a, %c111 : i32
  return %0 : i32
}
func.func @f111(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper111(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper112(%a: i32) -> i32 {
  %c112 = test.constant {value = 112 : i32} : i32
  %0 = test.addi %a, %c112 : i32
  return %0 : i32
}
func.func @f112(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper112(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper113(%a: i32) -> i32 {
  %c113 = test.constant {value = 113 : i32} : i32
  %0 = test.addi %a, %c113 : i32
  return %0 : i32
}
func.func @f113(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper113(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper114(%a: i32) -> i32 {
  %c114 = test.constant {value = 114 : i32} : i32
  %0 = test.addi %a, %c114 : i32
  return %0 : i32
}
func.func @f114(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper114(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper115(%a: i32) -> i32 {
  %c115 = test.constant {value = 115 : i32} : i32
  %0 = test.addi %a, %c115 : i32
  return %0 : i32
}
func.func @f115(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper115(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper116(%a: i32) -> i32 {
  %c116 = test.constant {value = 116 : i32} : i32
  %0 = test.addi %a, %c116 : i32
  return %0 : i32
}
func.func @f116(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper116(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper117(%a: i32) -> i32 {
  %c117 = test.constant {value = 117 : i32} : i32
  %0 = test.addi %a, %c117 : i32
  return %0 : i32
}
func.func @f117(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper117(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper118(%a: i32) -> i32 {
  %c118 = test.constant {value = 118 : i32} : i32
  %0 = test.addi %a, %c118 : i32
  return %0 : i32
}
func.func @f118(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper118(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
func.func private @helper119(%a: i32) -> i32 {
  %c119 = test.constant {value = 119 : i32} : i32
  %0 = test.addi %a, %c119 : i32
  return %0 : i32
}
func.func @f119(%a: i32, %c: i1) -> i32 {
  %c1 = test.constant {value = 1 : i32} : i32
  %0 = test.muli %a, %c1 : i32
  %1 = test.addi %0, %a : i32
  %2 = test.addi %0, %a : i32
  %3 = call @helper119(%2) : (i32) -> i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %4 = test.effect %1 : i32
  return %4 : i32
^bb2:
  return %3 : i32
}
