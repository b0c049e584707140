//! The seed's intermediate cost JSON (`kernel_cost_schema.json`: a leaf kernel with formulas or
//! a composite kernel with children) and its conversion to and from `cost.kernel` /
//! `cost.composite` ops, both ways. JSON -> ops -> JSON gives the same JSON value except that
//! leaf formulas come back in canonical form and `count` is always written (default 1);
//! ops -> JSON -> ops gives the same ops.

use serde_json::{Map, Value};
use xcs_ir::{Body, Context, Location, Module, Op, OperationState};

use super::Cost;

/// One kernel's intermediate cost JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelCostJson {
    /// The symbol name of the op (dots are fine: `torch.addmm`).
    pub kernel_name: String,
    pub init_params: Vec<String>,
    pub forward_params: Vec<String>,
    pub body: KernelBody,
}

/// The two variants of the schema's `oneOf`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelBody {
    /// Formulas (`flops`, `memory_read`, `memory_write`, and the optional `transcendentals`).
    Leaf {
        flops: String,
        memory_read: String,
        memory_write: String,
        transcendentals: Option<String>,
    },
    /// Children in document order.
    Composite { children: Vec<ChildJson> },
}

impl KernelBody {
    /// A leaf's formulas with their field names, in the schema's order (`transcendentals` only
    /// when present); none for a composite.
    pub fn formulas(&self) -> impl Iterator<Item = (&'static str, &str)> {
        let (fields, transcendentals) = match self {
            KernelBody::Leaf {
                flops,
                memory_read,
                memory_write,
                transcendentals,
            } => {
                let fields = [("flops", flops), ("memory_read", memory_read), ("memory_write", memory_write)];
                (Some(fields.map(|(k, f)| (k, f.as_str()))), transcendentals.as_deref())
            }
            KernelBody::Composite { .. } => (None, None),
        };
        fields.into_iter().flatten().chain(transcendentals.map(|t| ("transcendentals", t)))
    }
}

/// One entry of `children`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChildJson {
    pub label: String,
    pub kernel: String,
    /// Child parameter -> formula in the parent's namespace, in document order.
    pub bindings: Vec<(String, String)>,
    pub count: Count,
}

/// `count`: an integer (>= 1) or a formula.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Count {
    Int(i64),
    Formula(String),
}

fn str_array(v: &Value, what: &str) -> Result<Vec<String>, String> {
    let Some(a) = v.as_array() else {
        return Err(format!("'{what}' must be an array of strings"));
    };
    a.iter()
        .map(|e| {
            e.as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("'{what}' must be an array of strings"))
        })
        .collect()
}

impl KernelCostJson {
    /// Reads one kernel's JSON text.
    pub fn from_json_str(text: &str) -> Result<KernelCostJson, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
        Self::from_json(&v)
    }

    /// Reads and checks one kernel's JSON value against the intermediate schema.
    pub fn from_json(v: &Value) -> Result<KernelCostJson, String> {
        let Some(o) = v.as_object() else {
            return Err("a kernel cost JSON must be an object".into());
        };
        let kernel_name = match o.get("kernel_name") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(_) => return Err("'kernel_name' must be a non-empty string".into()),
            None => return Err("missing 'kernel_name'".into()),
        };
        let ctx = |m: String| format!("kernel '{kernel_name}': {m}");
        let field = |k: &str| o.get(k).ok_or_else(|| ctx(format!("missing '{k}'")));
        let init_params = str_array(field("init_params")?, "init_params").map_err(ctx)?;
        let forward_params = str_array(field("forward_params")?, "forward_params").map_err(ctx)?;
        let formulas = ["flops", "memory_read", "memory_write"];
        let has_formula = formulas.iter().any(|k| o.contains_key(*k));
        let body = match (o.get("children"), has_formula) {
            (Some(_), true) => {
                return Err(ctx(
                    "has both 'children' and formulas; a kernel is either a leaf (flops, memory_read, memory_write) or a composite (children)".into(),
                ))
            }
            (None, false) => {
                return Err(ctx("has neither formulas (flops, memory_read, memory_write) nor 'children'".into()));
            }
            (None, true) => {
                let get = |k: &str| match o.get(k) {
                    Some(Value::String(s)) => Ok(s.clone()),
                    Some(_) => Err(ctx(format!("'{k}' must be a string"))),
                    None => Err(ctx(format!("missing '{k}'"))),
                };
                let transcendentals = match o.get("transcendentals") {
                    None => None,
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(_) => return Err(ctx("'transcendentals' must be a string".into())),
                };
                KernelBody::Leaf { flops: get("flops")?, memory_read: get("memory_read")?, memory_write: get("memory_write")?, transcendentals }
            }
            (Some(c), false) => {
                let Some(c) = c.as_object() else { return Err(ctx("'children' must be an object".into())) };
                if c.is_empty() {
                    return Err(ctx("'children' must have at least one entry".into()));
                }
                let children = c.iter().map(|(label, v)| ChildJson::from_json(label, v).map_err(&ctx)).collect::<Result<_, _>>()?;
                KernelBody::Composite { children }
            }
        };
        Ok(KernelCostJson {
            kernel_name,
            init_params,
            forward_params,
            body,
        })
    }

    /// The JSON value, fields in the seed's order.
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("kernel_name".into(), Value::String(self.kernel_name.clone()));
        let arr = |v: &[String]| Value::Array(v.iter().map(|s| Value::String(s.clone())).collect());
        o.insert("init_params".into(), arr(&self.init_params));
        o.insert("forward_params".into(), arr(&self.forward_params));
        match &self.body {
            KernelBody::Leaf { .. } => {
                for (k, text) in self.body.formulas() {
                    o.insert(k.into(), Value::String(text.to_string()));
                }
            }
            KernelBody::Composite { children } => {
                let c: Map<String, Value> = children.iter().map(|ch| (ch.label.clone(), ch.to_json())).collect();
                o.insert("children".into(), Value::Object(c));
            }
        }
        Value::Object(o)
    }

    /// Pretty-printed JSON text (two-space indent, trailing newline).
    pub fn to_json_string(&self) -> String {
        let mut s = serde_json::to_string_pretty(&self.to_json()).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Creates the op (`cost.kernel` or `cost.composite`), detached, in `body`. Leaf formulas
    /// are parsed and canonicalised (a malformed one is an error naming the kernel, the field
    /// and the column); everything else is checked later by the verifier.
    pub fn to_op(&self, ctx: &Context, body: &mut Body, loc: Location) -> Result<Op, String> {
        let strs = |v: &[String]| ctx.array_attr(&v.iter().map(|s| ctx.str_attr(s)).collect::<Vec<_>>());
        let common = |st: OperationState| {
            st.attr(ctx, "sym_name", ctx.str_attr(&self.kernel_name))
                .attr(ctx, "init_params", strs(&self.init_params))
                .attr(ctx, "forward_params", strs(&self.forward_params))
        };
        match &self.body {
            KernelBody::Leaf { .. } => {
                let mut cost = Cost::default();
                for (i, (k, text)) in self.body.formulas().enumerate() {
                    let e = text.parse().map_err(|e: crate::symbolic::ExprError| {
                        format!(
                            "kernel '{}': malformed {k} formula \"{text}\": {}",
                            self.kernel_name,
                            e.describe(text)
                        )
                    })?;
                    match i {
                        0 => cost.flops = e,
                        1 => cost.read = e,
                        2 => cost.write = e,
                        _ => cost.transcendentals = e,
                    }
                }
                let st = common(OperationState::of(ctx, super::KernelOp::DEF, loc)).attr(ctx, "cost", cost.to_attr(ctx));
                Ok(body.create_op(st))
            }
            KernelBody::Composite { children } => {
                let mut nested = Body::new(ctx, ctx.op_name(super::CompositeOp::DEF.name), loc);
                let r = nested.add_root_region();
                let b = nested.create_block(&[]);
                nested.append_block(r, b);
                for ch in children {
                    let op = nested.create_op(ch.to_state(ctx, loc));
                    nested.append_op(b, op);
                }
                let mut st = common(OperationState::of(ctx, super::CompositeOp::DEF, loc));
                st.nested = Some(Box::new(nested));
                Ok(body.create_op(st))
            }
        }
    }

    /// Reads a `cost.kernel` or `cost.composite` op back (the op should be verified).
    pub fn from_op(ctx: &Context, body: &Body, op: Op) -> Result<KernelCostJson, String> {
        let name = body.op_name(op);
        let attrs = body.attrs(op);
        let kernel_name = ctx
            .dict_get(attrs, "sym_name")
            .and_then(|a| ctx.as_str(a))
            .ok_or("op without 'sym_name'")?
            .to_string();
        let list = |k: &str| super::str_list(ctx, ctx.dict_get(attrs, k));
        let (init_params, forward_params) = (list("init_params"), list("forward_params"));
        let body_json = if super::KernelOp::matches(ctx, name) {
            let cost = ctx
                .dict_get(attrs, "cost")
                .and_then(|a| Cost::from_attr(ctx, a))
                .ok_or_else(|| format!("kernel '{kernel_name}' has no '#cost.cost' attribute"))?
                .map_err(|e| format!("kernel '{kernel_name}': {}", e.message))?;
            KernelBody::Leaf {
                flops: cost.flops.to_string(),
                memory_read: cost.read.to_string(),
                memory_write: cost.write.to_string(),
                transcendentals: (!cost.transcendentals.is_zero()).then(|| cost.transcendentals.to_string()),
            }
        } else if super::CompositeOp::matches(ctx, name) {
            let nested = body.nested(op).ok_or("composite without a body")?;
            let ops = nested
                .root_regions()
                .first()
                .and_then(|&r| nested.entry_block(r))
                .map(|b| nested.block_op_vec(b));
            let children = ops
                .unwrap_or_default()
                .into_iter()
                .map(|c| ChildJson::from_op(ctx, nested, c))
                .collect::<Result<_, _>>()?;
            KernelBody::Composite { children }
        } else {
            return Err(format!("'{}' is not a cost kernel op", ctx.op_name_str(name)));
        };
        Ok(KernelCostJson {
            kernel_name,
            init_params,
            forward_params,
            body: body_json,
        })
    }
}

impl ChildJson {
    fn from_json(label: &str, v: &Value) -> Result<ChildJson, String> {
        let e = |m: String| format!("child '{label}': {m}");
        let Some(o) = v.as_object() else {
            return Err(e("must be an object".into()));
        };
        if let Some(k) = o
            .keys()
            .find(|k| !matches!(k.as_str(), "kernel" | "bindings" | "count"))
        {
            return Err(e(format!(
                "unknown field '{k}' (a child has kernel, bindings and count)"
            )));
        }
        let kernel = match o.get("kernel") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(_) => return Err(e("'kernel' must be a non-empty string".into())),
            None => return Err(e("missing 'kernel'".into())),
        };
        let bindings = match o.get("bindings") {
            Some(Value::Object(b)) => b
                .iter()
                .map(|(k, v)| {
                    v.as_str()
                        .map(|s| (k.clone(), s.to_string()))
                        .ok_or_else(|| e(format!("binding '{k}' must be a string")))
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(e("'bindings' must be an object".into())),
            None => return Err(e("missing 'bindings'".into())),
        };
        let count = match o.get("count") {
            None => Count::Int(1),
            Some(Value::String(s)) => Count::Formula(s.clone()),
            Some(Value::Number(n)) => match n.as_i64() {
                Some(i) if i >= 1 => Count::Int(i),
                _ => {
                    return Err(e(format!(
                        "'count' must be an integer >= 1 or a formula string, got {n}"
                    )))
                }
            },
            Some(other) => {
                return Err(e(format!(
                    "'count' must be an integer >= 1 or a formula string, got {other}"
                )))
            }
        };
        Ok(ChildJson {
            label: label.to_string(),
            kernel,
            bindings,
            count,
        })
    }

    fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("kernel".into(), Value::String(self.kernel.clone()));
        let b: Map<String, Value> = self
            .bindings
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        o.insert("bindings".into(), Value::Object(b));
        o.insert(
            "count".into(),
            match &self.count {
                Count::Int(i) => Value::from(*i),
                Count::Formula(s) => Value::String(s.clone()),
            },
        );
        Value::Object(o)
    }

    fn to_state(&self, ctx: &Context, loc: Location) -> OperationState {
        let entries: Vec<_> = self
            .bindings
            .iter()
            .map(|(k, v)| (ctx.ident(k), ctx.str_attr(v)))
            .collect();
        let count = match &self.count {
            Count::Int(i) => ctx.i64_attr(*i),
            Count::Formula(s) => ctx.str_attr(s),
        };
        OperationState::of(ctx, super::ChildOp::DEF, loc)
            .attr(ctx, "label", ctx.str_attr(&self.label))
            .attr(ctx, "kernel", ctx.symbol_ref(&self.kernel))
            .attr(ctx, "bindings", ctx.dict(&entries))
            .attr(ctx, "count", count)
    }

    fn from_op(ctx: &Context, body: &Body, op: Op) -> Result<ChildJson, String> {
        let get = |k: &str| body.attr(ctx, op, k);
        let label = get("label")
            .and_then(|a| ctx.as_str(a))
            .ok_or("child without a 'label'")?
            .to_string();
        let kernel = get("kernel")
            .and_then(|a| ctx.as_symbol(a))
            .ok_or_else(|| format!("child '{label}' without a 'kernel'"))?;
        let count = match get("count") {
            None => Count::Int(1),
            Some(a) => match (ctx.as_int(a), ctx.as_str(a)) {
                (Some(i), _) => {
                    Count::Int(i64::try_from(i).map_err(|_| format!("child '{label}': count out of range"))?)
                }
                (_, Some(s)) => Count::Formula(s.to_string()),
                _ => return Err(format!("child '{label}': count is neither an integer nor a formula")),
            },
        };
        Ok(ChildJson {
            label,
            kernel: kernel.to_string(),
            bindings: super::child_bindings(ctx, body, op),
            count,
        })
    }
}

/// A module holding one op per kernel, in order.
pub fn module_from_json(ctx: &Context, kernels: &[KernelCostJson]) -> Result<Module, String> {
    let mut m = Module::new(ctx, Location::UNKNOWN);
    let block = m.block();
    for k in kernels {
        let op = k.to_op(ctx, &mut m.body, Location::UNKNOWN)?;
        m.body.append_op(block, op);
    }
    Ok(m)
}

/// The JSON of every `cost.kernel` and `cost.composite` directly in the module, in order.
pub fn module_to_json(ctx: &Context, m: &Module) -> Result<Vec<KernelCostJson>, String> {
    m.ops()
        .into_iter()
        .filter(|&op| super::is_cost_symbol(ctx, m.body.op_name(op)))
        .map(|op| KernelCostJson::from_op(ctx, &m.body, op))
        .collect()
}
