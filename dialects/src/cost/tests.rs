//! Tests of the cost dialect: the attribute's canonical form (through the parser and from
//! Rust), cost arithmetic, and the JSON <-> ops conversion on the seed's examples.

use xcs_ir::parser::{parse_attr, parse_module, ParseOptions};
use xcs_ir::printer::{print_module, PrintOptions};
use xcs_ir::verifier::verify_module;

use super::json::{module_from_json, module_to_json, ChildJson, Count, KernelBody, KernelCostJson};
use super::*;

fn ctx() -> Context {
    crate::context()
}

#[test]
fn attribute_is_canonical_at_parse_time() {
    let ctx = ctx();
    let a = parse_attr(
        &ctx,
        r#"#cost.cost<flops = "N*M + 0", read = "0*x", write = "2*(N*M)//2">"#,
    )
    .unwrap();
    let b = parse_attr(&ctx, r#"#cost.cost<write = "M*N",read="0", flops="M*N">"#).unwrap();
    assert_eq!(a, b);
    assert_eq!(
        xcs_ir::printer::attr_to_string(&ctx, a),
        r#"#cost.cost<flops = "M*N", read = "0", write = "M*N">"#
    );
    // The same attribute built from Rust is the same interned value.
    let c = Cost::parse("M*N", "0", "N*M").unwrap();
    assert_eq!(c.to_attr(&ctx), a);
    assert_eq!(Cost::from_attr(&ctx, a).unwrap().unwrap(), c);
    assert!(Cost::from_attr(&ctx, ctx.str_attr("x")).is_none());
    // transcendentals: printed only when not zero.
    let t = parse_attr(
        &ctx,
        r#"#cost.cost<flops = "5*n", read = "0", write = "0", transcendentals = "n">"#,
    )
    .unwrap();
    assert_eq!(
        xcs_ir::printer::attr_to_string(&ctx, t),
        r#"#cost.cost<flops = "5*n", read = "0", write = "0", transcendentals = "n">"#
    );
    let z = parse_attr(
        &ctx,
        r#"#cost.cost<flops = "1", read = "0", write = "0", transcendentals = "n - n">"#,
    )
    .unwrap();
    assert_eq!(z, Cost::parse("1", "0", "0").unwrap().to_attr(&ctx));
    // Escapes in the strings are decoded.
    let e = parse_attr(&ctx, r#"#cost.cost<flops = "\61", read = "0", write = "0">"#).unwrap();
    assert_eq!(e, Cost::parse("a", "0", "0").unwrap().to_attr(&ctx));
}

#[test]
fn attribute_errors_point_into_the_formula() {
    let ctx = ctx();
    let src = r#""foo.op"() {c = #cost.cost<flops = "1", read = "(a +", write = "0">} : () -> ()"#;
    let opts = ParseOptions {
        allow_unregistered: true,
        ..Default::default()
    };
    let d = parse_module(&ctx, src, "t.mlir", &opts)
        .err()
        .expect("malformed formula");
    assert!(
        d.message
            .starts_with("malformed read formula \"(a +\": unexpected end of formula"),
        "{}",
        d.message
    );
    // column of the end of `(a +` in the line
    let col = src.find("(a +").unwrap() + 4 + 1;
    assert_eq!(
        xcs_ir::printer::loc_to_string(&ctx, d.loc),
        format!("loc(\"t.mlir\":1:{col})")
    );
    for (text, msg) in [
        ("<>", "expected a key"),
        ("<flops = \"1\"", "expected ',' or '>'"),
        ("<flops = \"1>", "unterminated string"),
        ("<flops = \"\\q\", read = \"0\", write = \"0\">", "unknown escape"),
        ("<flops \"1\">", "expected '=' after 'flops'"),
        (
            "<flops = \"1\", read = \"0\", write = \"0\">x",
            "unexpected text after '>'",
        ),
        ("<read = \"0\">", "missing flops, write"),
    ] {
        let e = parse_params(text).expect_err(text);
        assert!(e.message.contains(msg), "{text}: {}", e.message);
        assert!(e.offset.is_some_and(|o| o <= text.len()), "{text}");
    }
}

#[test]
fn cost_arithmetic() {
    let addmm = Cost::parse("2*M*K*N + M*N", "(M*N + M*K + K*N)*bytes", "M*N*bytes").unwrap();
    let bind = |v: &str| match v {
        "M" => Some("batch_size*seq_len".parse().unwrap()),
        "K" => Some("nx".parse().unwrap()),
        "N" => Some("nf".parse().unwrap()),
        _ => None,
    };
    let conv = addmm.substitute(&bind).unwrap();
    assert_eq!(
        conv.flops.to_string(),
        "2*batch_size*nf*nx*seq_len + batch_size*nf*seq_len"
    );
    let twice = conv.times(&"config.num_hidden_layers".parse().unwrap()).unwrap();
    assert_eq!(
        twice.write.to_string(),
        "batch_size*bytes*config.num_hidden_layers*nf*seq_len"
    );
    let sum = conv.add(&conv).unwrap();
    assert_eq!(sum, conv.times(&Expr::constant(2)).unwrap());
    assert_eq!(
        sum.free_vars().into_iter().collect::<Vec<_>>(),
        ["batch_size", "bytes", "nf", "nx", "seq_len"]
            .map(String::from)
            .to_vec()
    );
}

const ADDMM: &str = r#"{
  "kernel_name": "torch.addmm",
  "init_params": [],
  "forward_params": ["M", "K", "N"],
  "flops": "2 * M * K * N + M * N",
  "memory_read": "(M * N + M * K + K * N) * bytes",
  "memory_write": "M * N * bytes"
}"#;
const MATMUL: &str = r#"{"kernel_name": "torch.matmul", "init_params": [], "forward_params": ["M", "K", "N"],
  "flops": "2*M*K*N", "memory_read": "(M*K + K*N)*bytes", "memory_write": "M*N*bytes"}"#;
const MUL: &str = r#"{"kernel_name": "torch.mul", "init_params": [], "forward_params": ["num_elements"],
  "flops": "num_elements", "memory_read": "2*num_elements*bytes", "memory_write": "num_elements*bytes"}"#;
const SOFTMAX: &str = r#"{"kernel_name": "F.softmax", "init_params": [], "forward_params": ["num_elements"],
  "flops": "5*num_elements", "memory_read": "num_elements*bytes", "memory_write": "num_elements*bytes",
  "transcendentals": "num_elements"}"#;
const CONV1D: &str = r#"{
  "kernel_name": "Conv1D",
  "init_params": ["nf", "nx"],
  "forward_params": [],
  "children": {
    "addmm": {
      "kernel": "torch.addmm",
      "bindings": { "M": "batch_size*seq_len", "K": "nx", "N": "nf" },
      "count": 1
    }
  }
}"#;
const GPT2_ATTENTION: &str = r#"{
  "kernel_name": "GPT2Attention",
  "init_params": [],
  "forward_params": [],
  "children": {
    "c_attn": { "kernel": "Conv1D", "bindings": { "nf": "3*config.n_embd", "nx": "config.n_embd" }, "count": 1 },
    "c_proj": { "kernel": "Conv1D", "bindings": { "nf": "config.n_embd", "nx": "config.n_embd" }, "count": 1 },
    "scale_query": { "kernel": "torch.mul", "bindings": { "num_elements": "batch_size*seq_len*config.n_embd" }, "count": 1 },
    "qk_matmul": { "kernel": "torch.matmul",
      "bindings": { "M": "batch_size*config.n_head*seq_len", "K": "config.n_embd//config.n_head", "N": "cache_len" }, "count": 1 },
    "softmax": { "kernel": "F.softmax", "bindings": { "num_elements": "batch_size*config.n_head*seq_len*cache_len" }, "count": 1 },
    "av_matmul": { "kernel": "torch.matmul",
      "bindings": { "M": "batch_size*config.n_head*seq_len", "K": "cache_len", "N": "config.n_embd//config.n_head" }, "count": 1 }
  }
}"#;
const GPT2_MODEL: &str = r#"{"kernel_name": "GPT2Model", "init_params": [], "forward_params": [],
  "children": {"h": {"kernel": "GPT2Attention", "bindings": {}, "count": "config.num_hidden_layers"}}}"#;

fn seed() -> Vec<KernelCostJson> {
    [ADDMM, MATMUL, MUL, SOFTMAX, CONV1D, GPT2_ATTENTION, GPT2_MODEL]
        .iter()
        .map(|t| KernelCostJson::from_json_str(t).unwrap())
        .collect()
}

#[test]
fn json_to_ops_and_back() {
    let ctx = ctx();
    let kernels = seed();
    let m = module_from_json(&ctx, &kernels).unwrap();
    verify_module(&ctx, &m, false).map_err(|d| format!("{d:?}")).unwrap();
    let text = print_module(&ctx, &m, &PrintOptions::default());
    assert!(text.contains(
        r#"cost.kernel @torch.addmm {cost = #cost.cost<flops = "2*K*M*N + M*N", read = "K*M*bytes + K*N*bytes + M*N*bytes", write = "M*N*bytes">, forward_params = ["M", "K", "N"], init_params = []}"#
    ), "{text}");
    assert!(
        text.contains(r#"cost.child "h" @GPT2Attention {bindings = {}, count = "config.num_hidden_layers"}"#),
        "{text}"
    );
    // The printed IR parses back to the same IR.
    let m2 = parse_module(&ctx, &text, "t.mlir", &ParseOptions::default()).unwrap();
    assert_eq!(print_module(&ctx, &m2, &PrintOptions::default()), text);

    // ops -> JSON: the same JSON values, leaf formulas canonical.
    let back = module_to_json(&ctx, &m2).unwrap();
    assert_eq!(back.len(), kernels.len());
    for (k, b) in kernels.iter().zip(&back) {
        let mut want = k.to_json();
        if let KernelBody::Leaf { .. } = k.body {
            for f in ["flops", "memory_read", "memory_write", "transcendentals"] {
                if let Some(v) = want.get_mut(f) {
                    *v = serde_json::Value::String(crate::symbolic::canonicalize(v.as_str().unwrap()).unwrap());
                }
            }
        }
        assert_eq!(b.to_json(), want, "{}", k.kernel_name);
        // and the JSON read from the file equals the written one for composites
        if let KernelBody::Composite { .. } = k.body {
            let original: serde_json::Value = serde_json::from_str(
                [CONV1D, GPT2_ATTENTION, GPT2_MODEL]
                    .iter()
                    .find(|t| t.contains(&k.kernel_name))
                    .unwrap(),
            )
            .unwrap();
            assert_eq!(b.to_json(), original);
        }
    }
    // Children keep their document order in both directions.
    let KernelBody::Composite { children } = &back[5].body else {
        panic!()
    };
    let labels: Vec<&str> = children.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(
        labels,
        ["c_attn", "c_proj", "scale_query", "qk_matmul", "softmax", "av_matmul"]
    );
    // JSON text round trip.
    let again = KernelCostJson::from_json_str(&back[5].to_json_string()).unwrap();
    assert_eq!(again, back[5]);
    // ops -> JSON -> ops prints the same.
    let m3 = module_from_json(&ctx, &back).unwrap();
    assert_eq!(print_module(&ctx, &m3, &PrintOptions::default()), text);
}

#[test]
fn json_text_is_the_seeds_shape() {
    let k = KernelCostJson::from_json_str(CONV1D).unwrap();
    assert_eq!(
        k.to_json_string(),
        r#"{
  "kernel_name": "Conv1D",
  "init_params": [
    "nf",
    "nx"
  ],
  "forward_params": [],
  "children": {
    "addmm": {
      "kernel": "torch.addmm",
      "bindings": {
        "M": "batch_size*seq_len",
        "K": "nx",
        "N": "nf"
      },
      "count": 1
    }
  }
}
"#
    );
    // A child without `count` gets the schema's default.
    let k = KernelCostJson::from_json_str(
        r#"{"kernel_name": "A", "init_params": [], "forward_params": [], "children": {"x": {"kernel": "B", "bindings": {}}}}"#,
    )
    .unwrap();
    let KernelBody::Composite { children } = &k.body else {
        panic!()
    };
    assert_eq!(
        children[0],
        ChildJson {
            label: "x".into(),
            kernel: "B".into(),
            bindings: vec![],
            count: Count::Int(1)
        }
    );
}

#[test]
fn json_errors() {
    let ctx = ctx();
    for (text, msg) in [
        ("[]", "must be an object"),
        ("{", "invalid JSON"),
        (r#"{"init_params": []}"#, "missing 'kernel_name'"),
        (
            r#"{"kernel_name": "k", "forward_params": []}"#,
            "kernel 'k': missing 'init_params'",
        ),
        (
            r#"{"kernel_name": "k", "init_params": [1], "forward_params": []}"#,
            "'init_params' must be an array of strings",
        ),
        (
            r#"{"kernel_name": "k", "init_params": [], "forward_params": []}"#,
            "has neither formulas",
        ),
        (
            r#"{"kernel_name": "k", "init_params": [], "forward_params": [], "flops": "1", "children": {}}"#,
            "has both 'children' and formulas",
        ),
        (
            r#"{"kernel_name": "k", "init_params": [], "forward_params": [], "flops": "1", "memory_read": "0"}"#,
            "missing 'memory_write'",
        ),
        (
            r#"{"kernel_name": "k", "init_params": [], "forward_params": [], "children": {}}"#,
            "at least one entry",
        ),
        (
            r#"{"kernel_name": "k", "init_params": [], "forward_params": [], "children": {"a": {"kernel": "b"}}}"#,
            "child 'a': missing 'bindings'",
        ),
        (
            r#"{"kernel_name": "k", "init_params": [], "forward_params": [], "children": {"a": {"kernel": "b", "bindings": {}, "count": 0}}}"#,
            "'count' must be an integer >= 1 or a formula string, got 0",
        ),
        (
            r#"{"kernel_name": "k", "init_params": [], "forward_params": [], "children": {"a": {"kernel": "b", "bindings": {}, "extra": 1}}}"#,
            "unknown field 'extra'",
        ),
        (
            r#"{"kernel_name": "k", "init_params": [], "forward_params": [], "children": {"a": {"kernel": "b", "bindings": {"x": 3}}}}"#,
            "binding 'x' must be a string",
        ),
    ] {
        let e = KernelCostJson::from_json_str(text).expect_err(text);
        assert!(e.contains(msg), "{text}: {e}");
    }
    // A malformed leaf formula is reported with the kernel, the field and the column.
    let k = KernelCostJson::from_json_str(
        r#"{"kernel_name": "k", "init_params": [], "forward_params": ["M"], "flops": "M *", "memory_read": "0", "memory_write": "0"}"#,
    )
    .unwrap();
    let mut m = xcs_ir::Module::new(&ctx, xcs_ir::Location::UNKNOWN);
    let e = k.to_op(&ctx, &mut m.body, xcs_ir::Location::UNKNOWN).unwrap_err();
    assert!(
        e.starts_with("kernel 'k': malformed flops formula \"M *\": unexpected end of formula"),
        "{e}"
    );
    assert!(e.ends_with("(at column 4)"), "{e}");
    // Semantic errors (unbound parameters, unknown kernels) come from the verifier.
    let bad = KernelCostJson::from_json_str(
        r#"{"kernel_name": "k", "init_params": [], "forward_params": [], "children": {"a": {"kernel": "torch.addmm", "bindings": {"M": "1"}}}}"#,
    )
    .unwrap();
    let m = module_from_json(&ctx, &[KernelCostJson::from_json_str(ADDMM).unwrap(), bad]).unwrap();
    let d = verify_module(&ctx, &m, false).unwrap_err();
    assert!(
        d[0].message.contains("does not bind parameter 'K' of @torch.addmm"),
        "{}",
        d[0].message
    );
}
