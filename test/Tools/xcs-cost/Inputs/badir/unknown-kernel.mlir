module {
  cost.composite @Block {forward_params = [], init_params = []} {
    cost.child "mlp" @MLP {bindings = {}, count = 1 : i64}
  }
}
