//! Tests of the cost model's data and of `xcs-cost` resolve (seed 004): every file of `kernels/`
//! is valid against `schemas/kernel_cost_schema.json` (checked with the `jsonschema` crate),
//! the name map names only existing kernels, and the seed's worked example (GPT2Attention over
//! Conv1D over torch.addmm) resolves to exactly the seed's substituted `c_attn` formula.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use xcs::cost::{resolve_dir, validate_resolved_json};
use xcs_dialects::cost::json::{KernelBody, KernelCostJson};
use xcs_dialects::symbolic::canonicalize;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read_json(p: &Path) -> Value {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A validator compiled from the schema file of the repository (not the copy embedded in
/// `xcs-cost`), so the test checks the files a user sees.
fn validator(schema: &str) -> jsonschema::Validator {
    let v = read_json(&repo().join("schemas").join(schema));
    jsonschema::validator_for(&v).unwrap_or_else(|e| panic!("{schema} is not a valid JSON Schema: {e}"))
}

/// The kernel files of `kernels/` (not the name map), sorted.
fn kernel_files() -> Vec<PathBuf> {
    let dir = repo().join("kernels");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter(|p| p.file_name().is_some_and(|n| n != "kernel_name_map.json"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_kernel_file_is_valid_against_the_schema() {
    let v = validator("kernel_cost_schema.json");
    let files = kernel_files();
    assert!(files.len() >= 20, "kernels/ has only {} files", files.len());
    let mut names = Vec::new();
    for p in &files {
        let j = read_json(p);
        let errs: Vec<String> = v
            .iter_errors(&j)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(errs.is_empty(), "{}: {}", p.display(), errs.join("; "));
        // Every hand-written kernel is a leaf whose formulas parse.
        let k = KernelCostJson::from_json(&j).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let KernelBody::Leaf {
            flops,
            memory_read,
            memory_write,
            transcendentals,
        } = &k.body
        else {
            panic!("{}: a hand-written kernel must be a leaf", p.display())
        };
        for f in [flops, memory_read, memory_write].into_iter().chain(transcendentals) {
            canonicalize(f).unwrap_or_else(|e| panic!("{}: malformed formula \"{f}\": {}", p.display(), e.describe(f)));
        }
        // The file is named after its kernel.
        assert_eq!(
            p.file_stem().unwrap().to_string_lossy(),
            k.kernel_name,
            "{}",
            p.display()
        );
        names.push(k.kernel_name);
    }
    // The seed's list of hand-written leaves is all there.
    for want in [
        "torch.matmul",
        "torch.bmm",
        "torch.addmm",
        "F.linear",
        "F.softmax",
        "F.scaled_dot_product_attention",
        "F.silu",
        "F.gelu",
        "F.relu",
        "F.dropout",
        "F.layer_norm",
        "F.batch_norm",
        "F.embedding",
        "torch.add",
        "torch.mul",
        "contiguous",
        "clone",
        "view",
        "reshape",
        "transpose",
    ] {
        assert!(names.iter().any(|n| n == want), "kernels/ has no '{want}'");
    }
    // view / reshape / transpose cost nothing.
    for zero in ["view", "reshape", "transpose"] {
        let j = read_json(&repo().join("kernels").join(format!("{zero}.json")));
        for f in ["flops", "memory_read", "memory_write"] {
            assert_eq!(j[f], "0", "{zero}.{f}");
        }
    }
    // The embedded library (what cost-annotate and xcs-cost use) loads without problems.
    let lib = xcs_dialects::cost::library::library();
    assert!(lib.errors.is_empty(), "{:?}", lib.errors);
    assert_eq!(lib.kernels.len(), files.len());
}

#[test]
fn the_schema_check_can_fail() {
    let v = validator("kernel_cost_schema.json");
    let good = read_json(&repo().join("kernels/torch.addmm.json"));
    assert!(v.is_valid(&good));
    for bad in [
        // both formulas and children
        r#"{"kernel_name": "k", "init_params": [], "forward_params": [], "flops": "1", "memory_read": "0", "memory_write": "0", "children": {"a": {"kernel": "b", "bindings": {}}}}"#,
        // a leaf without memory_write
        r#"{"kernel_name": "k", "init_params": [], "forward_params": [], "flops": "1", "memory_read": "0"}"#,
        // count 0
        r#"{"kernel_name": "k", "init_params": [], "forward_params": [], "children": {"a": {"kernel": "b", "bindings": {}, "count": 0}}}"#,
        // a binding that is not a string
        r#"{"kernel_name": "k", "init_params": [], "forward_params": [], "children": {"a": {"kernel": "b", "bindings": {"x": 1}}}}"#,
        // no forward_params
        r#"{"kernel_name": "k", "init_params": [], "flops": "1", "memory_read": "0", "memory_write": "0"}"#,
    ] {
        let j: Value = serde_json::from_str(bad).unwrap();
        assert!(!v.is_valid(&j), "accepted: {bad}");
    }
}

#[test]
fn name_map_entries_name_existing_kernels() {
    let map = read_json(&repo().join("kernels/kernel_name_map.json"));
    let map = map.as_object().expect("kernel_name_map.json is an object");
    let names: Vec<String> = kernel_files()
        .iter()
        .map(|p| read_json(p)["kernel_name"].as_str().unwrap().to_string())
        .collect();
    for (k, v) in map {
        let v = v.as_str().unwrap_or_else(|| panic!("'{k}' maps to a non-string"));
        assert!(
            names.iter().any(|n| n == v),
            "'{k}' maps to '{v}', which is not a kernel of kernels/"
        );
    }
    // Every tensor-dialect op that cost-annotate prices has an entry, and fully qualified torch
    // names map to the seed's short names.
    for key in [
        "tensor.add",
        "tensor.mul",
        "tensor.matmul",
        "tensor.softmax",
        "tensor.layer_norm",
        "tensor.gelu",
        "tensor.reshape",
        "tensor.transpose",
        "tensor.fused",
        "torch.nn.functional.linear",
        "torch.nn.functional.softmax",
    ] {
        assert!(map.contains_key(key), "kernel_name_map.json has no '{key}'");
    }
    assert_eq!(map["torch.nn.functional.linear"], "F.linear");
}

/// The seed's worked example, with the seed's own leaf JSONs (test/Tools/xcs-cost/Inputs/gpt2).
fn gpt2() -> PathBuf {
    repo().join("test/Tools/xcs-cost/Inputs/gpt2")
}

#[test]
fn seed_worked_example_c_attn() {
    let tree = resolve_dir(&gpt2(), "GPT2Attention", &BTreeMap::new()).unwrap();
    // The seed: flops = "2*(batch_size*seq_len)*(config.n_embd)*(3*config.n_embd) + ..." where
    // "..." is torch.addmm's M*N term with the same substitution.
    let seed_flops =
        "2*(batch_size*seq_len)*(config.n_embd)*(3*config.n_embd) + (batch_size*seq_len)*(3*config.n_embd)";
    let seed_read = "((batch_size*seq_len)*(3*config.n_embd) + (batch_size*seq_len)*(config.n_embd) + (config.n_embd)*(3*config.n_embd)) * bytes";
    let seed_write = "(batch_size*seq_len)*(3*config.n_embd) * bytes";
    let c_attn = tree.child("c_attn").expect("c_attn");
    assert_eq!(c_attn.kernel, "Conv1D");
    assert_eq!(c_attn.cost.flops.to_string(), canonicalize(seed_flops).unwrap());
    assert_eq!(
        c_attn.cost.flops.to_string(),
        "6*batch_size*config.n_embd**2*seq_len + 3*batch_size*config.n_embd*seq_len"
    );
    assert_eq!(c_attn.cost.read.to_string(), canonicalize(seed_read).unwrap());
    assert_eq!(c_attn.cost.write.to_string(), canonicalize(seed_write).unwrap());
    // "(same substitution cascaded down)"
    let addmm = c_attn.child("addmm").expect("c_attn.addmm");
    assert_eq!(addmm.kernel, "torch.addmm");
    assert_eq!(addmm.cost.flops, c_attn.cost.flops);
    assert_eq!(addmm.cost.read, c_attn.cost.read);
    // c_proj: nf = nx = config.n_embd
    let c_proj = tree.child("c_proj").unwrap();
    assert_eq!(
        c_proj.cost.flops.to_string(),
        canonicalize("2*(batch_size*seq_len)*(config.n_embd)*(config.n_embd) + (batch_size*seq_len)*(config.n_embd)")
            .unwrap()
    );
    // At the root only implicit variables remain.
    for v in tree.cost.flops.free_vars() {
        assert!(xcs_dialects::symbolic::is_implicit_var(&v), "{v}");
    }
    // The root is the sum of its children; every child keeps its own figures.
    let labels: Vec<&str> = tree.children.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(
        labels,
        ["c_attn", "c_proj", "scale_query", "qk_matmul", "softmax", "av_matmul"]
    );
    let mut sum = xcs_dialects::cost::Cost::default();
    for c in &tree.children {
        sum = sum.add(&c.cost.times(&c.count).unwrap()).unwrap();
    }
    assert_eq!(sum, tree.cost);
    // The output is valid against the resolved schema (the repository's file).
    let out: Value = serde_json::from_str(&tree.to_json()).unwrap();
    let v = validator("resolved_cost_schema.json");
    assert!(v.is_valid(&out), "{}", tree.to_json());
    validate_resolved_json(&out).unwrap();
    assert_eq!(out["children"]["c_attn"]["flops"], c_attn.cost.flops.to_string());
}

#[test]
fn counts_are_expressions_and_bindings_substitute_numbers() {
    let tree = resolve_dir(&gpt2(), "GPT2Model", &BTreeMap::new()).unwrap();
    let h = tree.child("h").unwrap();
    assert_eq!(h.count.to_string(), "config.num_hidden_layers");
    assert_eq!(tree.cost.flops, h.cost.flops.mul(&h.count).unwrap());
    let out: Value = serde_json::from_str(&tree.to_json()).unwrap();
    assert_eq!(out["children"]["h"]["count"], "config.num_hidden_layers");

    let bind: BTreeMap<String, i128> = [
        ("batch_size", 1),
        ("seq_len", 128),
        ("cache_len", 128),
        ("bytes", 4),
        ("config.n_embd", 768),
        ("config.n_head", 12),
        ("config.num_hidden_layers", 12),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let tree = resolve_dir(&gpt2(), "GPT2Model", &bind).unwrap();
    let h = tree.child("h").unwrap();
    assert_eq!(h.count.as_constant(), Some(12));
    let c_attn = h.child("c_attn").unwrap();
    // 2*128*768*2304 + 128*2304
    assert_eq!(c_attn.cost.flops.as_constant(), Some(2 * 128 * 768 * 2304 + 128 * 2304));
    assert_eq!(
        tree.cost.flops.as_constant(),
        Some(12 * h.cost.flops.as_constant().unwrap())
    );
    let out: Value = serde_json::from_str(&tree.to_json()).unwrap();
    assert_eq!(out["children"]["h"]["count"], 12);
    validate_resolved_json(&out).unwrap();
}
