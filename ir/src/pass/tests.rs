//! Tests of the pass manager with mock passes, a mock printer and mock verifiers (the real
//! printer and verifier live in other modules).

use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;
use crate::body::{Body, OperationState};
use crate::context::Context;
use crate::diag::{Diagnostic, Severity};
use crate::location::Location;
use crate::module::Module;
use crate::opdef::SymbolLookup;
use crate::printer::PrintOptions;

// ------------------------------------------------------------------ mock passes

/// Appends `tag` to the anchor's `marks` string attribute; emits a remark with the count.
struct Mark {
    tag: String,
}
impl Pass for Mark {
    fn info(&self) -> &'static PassInfo {
        &MARK
    }
    fn run(&self, ctx: &Context, body: &mut Body, diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        let old = body
            .self_attr(ctx, "marks")
            .and_then(|a| ctx.as_str(a))
            .unwrap_or("")
            .to_string();
        let new = format!("{old}{}", self.tag);
        body.set_self_attr(ctx, "marks", Some(ctx.str_attr(&new)));
        diags.emit(Diagnostic::remark(
            body.loc(),
            format!("mark {} on {}", self.tag, sym(ctx, body)),
        ));
        Ok(PassResult::Changed)
    }
}

struct Noop;
impl Pass for Noop {
    fn info(&self) -> &'static PassInfo {
        &NOOP
    }
    fn run(&self, _: &Context, _: &mut Body, _: &mut dyn DiagSink) -> Result<PassResult, ()> {
        Ok(PassResult::Unchanged)
    }
}

/// Fails on symbols whose name starts with `bad`.
struct Fail;
impl Pass for Fail {
    fn info(&self) -> &'static PassInfo {
        &FAIL
    }
    fn run(&self, ctx: &Context, body: &mut Body, diags: &mut dyn DiagSink) -> Result<PassResult, ()> {
        if sym(ctx, body).starts_with("bad") {
            diags.emit(Diagnostic::error(body.loc(), format!("failed on {}", sym(ctx, body))));
            return Err(());
        }
        Ok(PassResult::Unchanged)
    }
}

/// Marks the anchor `broken` (the mock verifiers reject it).
struct Break;
impl Pass for Break {
    fn info(&self) -> &'static PassInfo {
        &BREAK
    }
    fn run(&self, ctx: &Context, body: &mut Body, _: &mut dyn DiagSink) -> Result<PassResult, ()> {
        body.set_self_attr(ctx, "broken", Some(ctx.unit_attr()));
        Ok(PassResult::Changed)
    }
}

/// Restricted to `func.func`.
struct FuncOnly;
impl Pass for FuncOnly {
    fn info(&self) -> &'static PassInfo {
        &FUNC_ONLY
    }
    fn anchor(&self) -> Option<&'static str> {
        Some("func.func")
    }
    fn run(&self, _: &Context, _: &mut Body, _: &mut dyn DiagSink) -> Result<PassResult, ()> {
        Ok(PassResult::Unchanged)
    }
}

const MODES: &[EnumValue] = &[
    EnumValue {
        name: "fast",
        description: "Go fast.",
    },
    EnumValue {
        name: "slow",
        description: "Go slow.",
    },
];
static MARK_OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "tag",
        kind: OptionKind::Str,
        default: "x",
        description: "Text to append",
    },
    OptionSpec {
        name: "count",
        kind: OptionKind::Int(IntKind::Long),
        default: "1",
        description: "Repetitions",
    },
    OptionSpec {
        name: "mode",
        kind: OptionKind::Enum(MODES),
        default: "fast",
        description: "Speed",
    },
    OptionSpec {
        name: "verbose",
        kind: OptionKind::Bool,
        default: "false",
        description: "Talk",
    },
    OptionSpec {
        name: "names",
        kind: OptionKind::StrList,
        default: "",
        description: "Names",
    },
];

/// A mock pass's registry entry: no description, no options.
const fn mock_info(argument: &'static str, name: &'static str, summary: &'static str, factory: PassFactory) -> PassInfo {
    PassInfo {
        argument,
        name,
        summary,
        description: "",
        options: &[],
        factory,
    }
}

const MARK: PassInfo = PassInfo {
    options: MARK_OPTIONS,
    ..mock_info("test-mark", "TestMark", "Mark the anchor", |o, _| {
        if o.int("count") < 0 {
            return Err("count must not be negative".into());
        }
        Ok(Box::new(Mark {
            tag: o.str("tag").repeat(o.int("count") as usize),
        }))
    })
};
const NOOP: PassInfo = mock_info("test-noop", "TestNoop", "Nothing", |_, _| Ok(Box::new(Noop)));
const FAIL: PassInfo = mock_info("test-fail", "TestFail", "Fail on @bad*", |_, _| Ok(Box::new(Fail)));
const BREAK: PassInfo = mock_info("test-break", "TestBreak", "Break the IR", |_, _| Ok(Box::new(Break)));
const FUNC_ONLY: PassInfo =
    mock_info("test-func-only", "TestFuncOnly", "Only on functions", |_, _| Ok(Box::new(FuncOnly)));

fn registry() -> PassRegistry {
    let mut r = PassRegistry::new();
    for info in [MARK, NOOP, FAIL, BREAK, FUNC_ONLY] {
        r.register(info);
    }
    r.register_pipeline("test-both", "Mark then noop", "test-mark{tag=p},test-noop");
    r
}

// ------------------------------------------------------------------ mock printer, verifier

fn sym(ctx: &Context, body: &Body) -> String {
    body.self_attr(ctx, "sym_name")
        .and_then(|a| ctx.as_str(a))
        .unwrap_or("-")
        .to_string()
}

fn mock_print(ctx: &Context, body: &Body, _: &PrintOptions) -> String {
    let marks = body
        .self_attr(ctx, "marks")
        .and_then(|a| ctx.as_str(a))
        .unwrap_or("")
        .to_string();
    format!("{} @{} marks={marks}", ctx.op_name_str(body.name()), sym(ctx, body))
}

fn broken(ctx: &Context, body: &Body) -> Option<Diagnostic> {
    let mut found = None;
    body.for_each_body(&mut |b| {
        if found.is_none() && b.self_attr(ctx, "broken").is_some() {
            found = Some(Diagnostic::error(b.loc(), format!("@{} is broken", sym(ctx, b))));
        }
    });
    found
}

fn mock_verify_module(ctx: &Context, m: &Module, _threads: bool) -> Result<(), Vec<Diagnostic>> {
    broken(ctx, &m.body).map_or(Ok(()), |d| Err(vec![d]))
}

static LOOKUPS: AtomicUsize = AtomicUsize::new(0);
/// Calls of the function verifier in modules with a `threads_probe` symbol, by its `threads`
/// argument (false, true).
static THREADS_SEEN: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(0)];

fn mock_verify_isolated(
    ctx: &Context,
    body: &Body,
    outer: &dyn SymbolLookup,
    threads: bool,
) -> Result<(), Vec<Diagnostic>> {
    // functions see their siblings through the scope
    if outer.lookup("verify_probe").is_some() {
        LOOKUPS.fetch_add(1, Ordering::Relaxed);
    }
    if outer.lookup("threads_probe").is_some() {
        THREADS_SEEN[threads as usize].fetch_add(1, Ordering::Relaxed);
    }
    broken(ctx, body).map_or(Ok(()), |d| Err(vec![d]))
}

fn options() -> PassManagerOptions {
    PassManagerOptions {
        printer: mock_print,
        module_printer: None,
        verify_module: mock_verify_module,
        verify_isolated: mock_verify_isolated,
        ..PassManagerOptions::default()
    }
}

// ------------------------------------------------------------------ IR

/// An isolated op `name` with `sym_name = sym` and one empty block.
fn isolated(ctx: &Context, name: &str, sym: &str, line: u32) -> OperationState {
    let loc = ctx.file_loc("t.mlir", line, 1);
    let mut b = Body::new(ctx, ctx.op_name(name), loc);
    let r = b.add_root_region();
    let blk = b.create_block(&[]);
    b.append_block(r, blk);
    let mut st = OperationState::new(ctx, name, loc).attr(ctx, "sym_name", ctx.str_attr(sym));
    st.nested = Some(Box::new(b));
    st
}

/// A module with functions `names` (`func.func`, unregistered here but isolated).
fn module(ctx: &Context, names: &[&str]) -> Module {
    let mut m = Module::new(ctx, ctx.file_loc("t.mlir", 1, 1));
    let blk = m.block();
    for (i, n) in names.iter().enumerate() {
        let op = m.body.create_op(isolated(ctx, "func.func", n, i as u32 + 2));
        m.body.append_op(blk, op);
    }
    m
}

fn marks_of(ctx: &Context, m: &Module) -> Vec<(String, String)> {
    m.ops()
        .into_iter()
        .filter_map(|op| {
            let b = m.body.nested(op)?;
            Some((
                sym(ctx, b),
                b.self_attr(ctx, "marks")
                    .and_then(|a| ctx.as_str(a))
                    .unwrap_or("")
                    .to_string(),
            ))
        })
        .collect()
}

fn run(pm: &PassManager, ctx: &Context, m: &mut Module) -> (Result<(), ()>, Vec<Diagnostic>, String) {
    let mut diags = Vec::new();
    let mut dump = Vec::new();
    let r = pm.run_with(ctx, m, &mut diags, &mut dump, None);
    (r, diags, String::from_utf8(dump).unwrap())
}

fn parse(text: &str) -> PassManager {
    let mut pm = PassManager::parse(text, &registry()).unwrap_or_else(|e| panic!("{}", e.render()));
    pm.options = options();
    pm
}

fn parse_err(text: &str) -> PipelineError {
    match PassManager::parse(text, &registry()) {
        Ok(pm) => panic!("expected an error, got {}", pm.root.to_text(false)),
        Err(e) => e,
    }
}

// ------------------------------------------------------------------ parsing and printing

#[test]
fn parses_and_prints_pipelines() {
    let pm = parse(" builtin.module( func.func(test-mark{tag=a count=2}, test-noop) ,test-mark,any(test-noop)) ");
    assert_eq!(
        pm.root.to_text(false),
        "builtin.module(func.func(test-mark{count=2 mode=fast  tag=a verbose=false},test-noop),test-mark{count=1 mode=fast  tag=x verbose=false},any(test-noop))"
    );
    assert_eq!(pm.root.num_passes(), 4);
    assert_eq!(
        pm.dump_pipeline(),
        "Pass Manager with 3 passes:\n\
builtin.module(\n\
\x20 func.func(\n\
\x20   test-mark{count=2 mode=fast  tag=a verbose=false},\n\
\x20   test-noop\n\
\x20 ),\n\
\x20 test-mark{count=1 mode=fast  tag=x verbose=false},\n\
\x20 any(\n\
\x20   test-noop\n\
\x20 )\n\
)\n\n"
    );
    // the printed form parses back to itself
    let again = parse(&pm.root.to_text(false));
    assert_eq!(again.root.to_text(false), pm.root.to_text(false));
    // empty pipelines, as mlir-opt prints them
    let empty = parse("builtin.module()");
    assert_eq!(
        empty.dump_pipeline(),
        "Pass Manager with 0 passes:\nbuiltin.module(\n\n)\n\n"
    );
    // list options print braced
    let l = parse("builtin.module(test-mark{names=a,b})");
    assert!(l.root.to_text(false).contains("names={a,b}"));
}

#[test]
fn named_pipelines_expand() {
    let pm = parse("builtin.module(func.func(test-both))");
    assert_eq!(
        pm.root.to_text(false),
        "builtin.module(func.func(test-mark{count=1 mode=fast  tag=p verbose=false},test-noop))"
    );
    let e = parse_err("builtin.module(test-both{a=1})");
    assert_eq!(e.message, "pass pipeline 'test-both' does not take options");
}

#[test]
fn pipeline_errors_match_mlir() {
    let wrap = "expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'";
    for text in [
        "test-mark",
        "(test-mark)",
        "builtin.module(test-mark",
        "",
        "builtin.module(test-mark{count=3",
    ] {
        let e = parse_err(text);
        assert_eq!((e.message.as_str(), e.offset), (wrap, None), "{text:?}");
    }
    let cases: &[(&str, &str, usize)] = &[
        ("builtin.module(nonexistent-pass)", "'nonexistent-pass' does not refer to a registered pass or pass pipeline", 15),
        ("builtin.module(,test-mark)", "'' does not refer to a registered pass or pass pipeline", 15),
        ("builtin.module(test-mark,)", "'' does not refer to a registered pass or pass pipeline", 25),
        ("builtin.module(test-mark test-noop)", "'test-mark test-noop' does not refer to a registered pass or pass pipeline", 15),
        ("builtin.module(func.func)", "'func.func' does not refer to a registered pass or pass pipeline", 15),
        ("builtin.module(func.func())", "'' does not refer to a registered pass or pass pipeline", 25),
        (
            "builtin.module(test-mark))",
            "encountered extra closing ')' creating unbalanced parentheses while parsing pipeline",
            24,
        ),
        (
            "builtin.module(test-mark) builtin.module(test-mark)",
            "encountered extra closing ')' creating unbalanced parentheses while parsing pipeline",
            24,
        ),
        ("builtin.module(func.func(test-mark)", "encountered unbalanced parentheses while parsing pipeline", 24),
        ("builtin.module(test-mark{tag=a)", "missing closing '}' while processing pass options", 24),
        ("builtin.module(func.func(test-mark)test-noop)", "expected ',' after parsing pipeline", 35),
        ("builtin.module(test-mark{tag=a}x)", "expected ',' after parsing pipeline", 31),
        ("builtin.module(test-mark{foo=1})", "failed to add `test-mark` with options `foo=1`: no such option foo", 25),
        (
            "builtin.module(test-mark{count=abc})",
            "failed to add `test-mark` with options `count=abc`: for the --count option: 'abc' value invalid for long argument!",
            25,
        ),
        (
            "builtin.module(test-mark{mode=warp})",
            "failed to add `test-mark` with options `mode=warp`: for the --mode option: Cannot find option named 'warp'!",
            25,
        ),
        (
            "builtin.module(test-mark{count=-1})",
            "failed to add `test-mark` with options `count=-1`: count must not be negative",
            25,
        ),
        (
            "builtin.module(test-func-only)",
            "Can't add pass 'TestFuncOnly' restricted to 'func.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?\nfailed to add `test-func-only` with options ``",
            15,
        ),
    ];
    for &(text, msg, off) in cases {
        let e = parse_err(text);
        assert_eq!((e.message.as_str(), e.offset), (msg, Some(off)), "{text}");
    }
    // restricted passes are fine where they belong, and in `any`
    parse("builtin.module(func.func(test-func-only),any(test-func-only))");
    // the rendered form points at the offending text
    let e = parse_err("builtin.module(test-mark,bogus)");
    assert_eq!(
        e.render(),
        "MLIR Textual PassPipeline Parser:1:26: error: 'bogus' does not refer to a registered pass or pass pipeline\n\
builtin.module(test-mark,bogus)\n\
\x20                        ^"
    );
}

#[test]
fn pass_flags_build_a_module_pipeline() {
    let r = registry();
    let pm = PassManager::from_pass_flags(&[("test-noop", ""), ("test-mark", "tag=q"), ("test-both", "")], &r).unwrap();
    assert_eq!(
        pm.root.to_text(false),
        "builtin.module(test-noop,test-mark{count=1 mode=fast  tag=q verbose=false},test-mark{count=1 mode=fast  tag=p verbose=false},test-noop)"
    );
    let e = PassManager::from_pass_flags(&[("nope", "")], &r).err().unwrap();
    assert_eq!(e.message, "'nope' does not refer to a registered pass or pass pipeline");
}

#[test]
fn list_passes_layout() {
    let mut r = PassRegistry::new();
    r.register(mock_info("b-pass", "BPass", "Second", |_, _| Ok(Box::new(Noop))));
    r.register(PassInfo {
        options: MARK_OPTIONS,
        ..mock_info("a-pass", "APass", "First", |_, _| Ok(Box::new(Noop)))
    });
    r.register_pipeline("c-pipe", "A pipeline", "b-pass");
    let expected = "\
Passes:
  --a-pass              -   First
    --count=<long>      - Repetitions (default: 1)
    --mode=<value>      - Speed (default: fast)
    =fast             -   Go fast.
    =slow             -   Go slow.
    --names=<string>    - Names
    --tag=<string>      - Text to append (default: x)
    --verbose           - Talk (default: false)
  --b-pass              -   Second
Pass Pipelines:
  --c-pipe              -   A pipeline
";
    assert_eq!(r.list_passes(), expected);
}

#[test]
fn options_validate_print_flags() {
    let r = registry();
    let mut o = options();
    o.print_after = vec!["test-mark".into()];
    assert!(o.validate(&r).is_ok());
    o.print_before = vec!["nonexist".into()];
    assert_eq!(
        o.validate(&r).unwrap_err(),
        "for the --mlir-print-ir-before option: Cannot find option named 'nonexist'!"
    );
}

// ------------------------------------------------------------------ running

#[test]
fn nested_managers_run_on_direct_children_only() {
    let ctx = Context::new();
    let mut m = module(&ctx, &["f", "g"]);
    // a module nested in the module holding a function: not a direct child of the top
    let blk = m.block();
    let inner = m.body.create_op(isolated(&ctx, "builtin.module", "inner", 9));
    m.body.append_op(blk, inner);
    {
        let ib = m.body.nested_mut(inner).unwrap();
        let ibk = ib.entry_block(ib.root_regions()[0]).unwrap();
        let f = ib.create_op(isolated(&ctx, "func.func", "h", 10));
        ib.append_op(ibk, f);
    }
    let pm = parse(
        "builtin.module(func.func(test-mark{tag=a}),test-mark{tag=m},builtin.module(func.func(test-mark{tag=n})))",
    );
    let (r, diags, _) = run(&pm, &ctx, &mut m);
    assert!(r.is_ok());
    assert_eq!(
        marks_of(&ctx, &m),
        vec![
            ("f".into(), "a".into()),
            ("g".into(), "a".into()),
            ("inner".into(), "".into())
        ]
    );
    assert_eq!(m.body.self_attr(&ctx, "marks"), Some(ctx.str_attr("m")));
    let ib = m.body.nested(inner).unwrap();
    let h = ib.nested(ib.top_ops()[0]).unwrap();
    assert_eq!(h.self_attr(&ctx, "marks"), Some(ctx.str_attr("n")));
    let msgs: Vec<&str> = diags.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(msgs, ["mark a on f", "mark a on g", "mark m on -", "mark n on h"]);
}

#[test]
fn any_runs_on_registered_isolated_ops() {
    let ctx = Context::new();
    let mut m = module(&ctx, &["f"]);
    let blk = m.block();
    let inner = m.body.create_op(isolated(&ctx, "builtin.module", "inner", 9));
    m.body.append_op(blk, inner);
    let pm = parse("builtin.module(any(test-mark{tag=y}))");
    let (r, _, _) = run(&pm, &ctx, &mut m);
    assert!(r.is_ok());
    // `func.func` is not registered in this context: `any` skips it
    assert_eq!(
        marks_of(&ctx, &m),
        vec![("f".into(), "".into()), ("inner".into(), "y".into())]
    );
}

#[test]
fn anchor_errors() {
    let ctx = Context::new();
    let mut m = module(&ctx, &["f"]);
    let pm = parse("func.func(test-mark)");
    let (r, diags, _) = run(&pm, &ctx, &mut m);
    assert!(r.is_err());
    assert_eq!(
        diags[0].message,
        "can't run 'func.func' pass manager on 'builtin.module' op"
    );
    // an op matching the anchor that is not isolated
    let blk = m.block();
    let op = m.body.create_op(OperationState::new(
        &ctx,
        "test.region_op",
        ctx.file_loc("t.mlir", 7, 3),
    ));
    m.body.append_op(blk, op);
    let pm = parse("builtin.module(test.region_op(test-mark))");
    let (r, diags, _) = run(&pm, &ctx, &mut m);
    assert!(r.is_err());
    assert_eq!(
        diags[0].message,
        "'test.region_op' op trying to schedule a pass on an operation not marked as 'IsolatedFromAbove'"
    );
    assert_eq!(diags[0].loc, ctx.file_loc("t.mlir", 7, 3));
}

#[test]
fn parallel_runs_are_deterministic() {
    let ctx = Context::new();
    let names: Vec<String> = (0..64).map(|i| format!("f{i}")).collect();
    let refs: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
    let text = "builtin.module(func.func(test-mark{tag=a},test-noop,test-mark{tag=b}),test-mark{tag=t})";
    let mut outputs = Vec::new();
    for threads in [1, 2, 4] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        for threading in [true, false] {
            let mut m = module(&ctx, &refs);
            let mut pm = parse(text);
            pm.options.threading = threading;
            pm.options.print_after_all = true;
            let (r, diags, dump) = pool.install(|| run(&pm, &ctx, &mut m));
            assert!(r.is_ok());
            let msgs: Vec<String> = diags.iter().map(|d| d.message.clone()).collect();
            outputs.push((msgs, dump, marks_of(&ctx, &m)));
        }
    }
    for o in &outputs[1..] {
        assert_eq!(o, &outputs[0]);
    }
    let (msgs, dump, marks) = &outputs[0];
    assert_eq!(msgs.len(), 64 * 2 + 1);
    assert_eq!(msgs[0], "mark a on f0");
    assert_eq!(msgs[1], "mark b on f0");
    assert_eq!(msgs[127], "mark b on f63");
    assert!(marks.iter().all(|(_, m)| m == "ab"));
    // per-function dumps stay together, in function order
    let f1 = dump.find("func.func @f1 marks=a\n").unwrap();
    let f0b = dump.find("func.func @f0 marks=ab\n").unwrap();
    assert!(f0b < f1);
}

#[test]
fn ir_dumps_before_after_change_and_failure() {
    let ctx = Context::new();
    let mut m = module(&ctx, &["f"]);
    let mut pm = parse("builtin.module(func.func(test-noop,test-mark{tag=a}),test-mark{tag=m})");
    pm.options.print_before = vec!["test-mark".into()];
    pm.options.print_after_all = true;
    let (_, _, dump) = run(&pm, &ctx, &mut m);
    assert_eq!(
        dump,
        "// -----// IR Dump After TestNoop (test-noop) //----- //\nfunc.func @f marks=\n\n\
// -----// IR Dump Before TestMark (test-mark) //----- //\nfunc.func @f marks=\n\n\
// -----// IR Dump After TestMark (test-mark) //----- //\nfunc.func @f marks=a\n\n\
// -----// IR Dump Before TestMark (test-mark) //----- //\nbuiltin.module @- marks=\n\n\
// -----// IR Dump After TestMark (test-mark) //----- //\nbuiltin.module @- marks=m\n\n"
    );
    // after-change skips passes that changed nothing
    let mut m = module(&ctx, &["f"]);
    let mut pm = parse("builtin.module(func.func(test-noop,test-mark{tag=a}))");
    pm.options.print_after_all = true;
    pm.options.print_after_change = true;
    let (_, _, dump) = run(&pm, &ctx, &mut m);
    assert_eq!(
        dump,
        "// -----// IR Dump After TestMark (test-mark) //----- //\nfunc.func @f marks=a\n\n"
    );
    // after-failure: only the failing pass, with `Failed`
    let mut m = module(&ctx, &["ok", "bad1", "bad2"]);
    let mut pm = parse("builtin.module(func.func(test-mark{tag=a},test-fail,test-mark{tag=b}),test-mark{tag=z})");
    pm.options.print_after_failure = true;
    let (r, diags, dump) = run(&pm, &ctx, &mut m);
    assert!(r.is_err());
    assert_eq!(
        dump,
        "// -----// IR Dump After TestFail Failed (test-fail) //----- //\nfunc.func @bad1 marks=a\n\n\
// -----// IR Dump After TestFail Failed (test-fail) //----- //\nfunc.func @bad2 marks=a\n\n"
    );
    let errors: Vec<&str> = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(errors, ["failed on bad1", "failed on bad2"]);
    // the failing functions stop; the others finish their pipeline; the module pass never runs
    assert_eq!(
        marks_of(&ctx, &m),
        vec![
            ("ok".into(), "ab".into()),
            ("bad1".into(), "a".into()),
            ("bad2".into(), "a".into())
        ]
    );
    assert_eq!(m.body.self_attr(&ctx, "marks"), None);
}

#[test]
fn function_verification_follows_the_threading_option() {
    let ctx = Context::new();
    for threading in [false, true] {
        THREADS_SEEN.iter().for_each(|c| c.store(0, Ordering::Relaxed));
        let mut m = module(&ctx, &["threads_probe", "f1"]);
        let mut pm = parse("builtin.module(func.func(test-noop))");
        pm.options.threading = threading;
        let (r, _, _) = run(&pm, &ctx, &mut m);
        assert!(r.is_ok());
        // `--mlir-disable-threading` reaches the verifier of each function
        assert_eq!(THREADS_SEEN[threading as usize].load(Ordering::Relaxed), 2);
        assert_eq!(THREADS_SEEN[!threading as usize].load(Ordering::Relaxed), 0);
    }
}

#[test]
fn verify_each_names_the_pass() {
    let ctx = Context::new();
    LOOKUPS.store(0, Ordering::Relaxed);
    let mut m = module(&ctx, &["verify_probe", "f1"]);
    let pm = parse("builtin.module(func.func(test-noop),test-break,test-mark)");
    let (r, diags, _) = run(&pm, &ctx, &mut m);
    assert!(r.is_err());
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].message, "@- is broken");
    assert_eq!(
        diags[0].notes[0].message,
        "the IR is invalid after running pass 'TestBreak' (test-break)"
    );
    assert_eq!(m.body.self_attr(&ctx, "marks"), None, "the pipeline stops");
    // function passes are verified with the module's symbols in scope
    assert_eq!(LOOKUPS.load(Ordering::Relaxed), 2);
    // nested
    let mut m = module(&ctx, &["f0"]);
    let pm = parse("builtin.module(func.func(test-break))");
    let (r, diags, _) = run(&pm, &ctx, &mut m);
    assert!(r.is_err());
    assert_eq!(diags[0].message, "@f0 is broken");
    // without verification the pipeline goes on
    let mut m = module(&ctx, &["f0"]);
    let mut pm = parse("builtin.module(test-break,test-mark{tag=k})");
    pm.options.verify_each = false;
    let (r, _, _) = run(&pm, &ctx, &mut m);
    assert!(r.is_ok());
    assert_eq!(m.body.self_attr(&ctx, "marks"), Some(ctx.str_attr("k")));
}

#[test]
fn timing_tree_mirrors_the_pipeline() {
    let ctx = Context::new();
    let mut m = module(&ctx, &["f", "g", "h"]);
    let mut pm = parse("builtin.module(func.func(test-mark,test-noop),test-noop)");
    pm.options.timing = true;
    let mut timing = Vec::new();
    let mut diags = Vec::new();
    pm.run_with(&ctx, &mut m, &mut diags, &mut std::io::sink(), Some(&mut timing))
        .unwrap();
    let names: Vec<(&str, Vec<&str>)> = timing
        .iter()
        .map(|n| (n.name.as_str(), n.children.iter().map(|c| c.name.as_str()).collect()))
        .collect();
    assert_eq!(
        names,
        vec![
            ("'func.func' Pipeline", vec!["TestMark", "TestNoop"]),
            ("TestNoop", vec![])
        ]
    );
    assert!(timing[0].wall >= timing[0].children[0].wall);
    let report = render_timing_report(&timing, std::time::Duration::from_secs(1));
    assert!(report.contains("  'func.func' Pipeline\n"));
    assert!(report.contains("    TestMark\n"));
    // without `timing` nothing is collected
    pm.options.timing = false;
    let mut timing = Vec::new();
    pm.run_with(
        &ctx,
        &mut module(&ctx, &["f"]),
        &mut diags,
        &mut std::io::sink(),
        Some(&mut timing),
    )
    .unwrap();
    assert!(timing.is_empty());
}

#[test]
fn run_on_body_is_the_plain_runner() {
    let ctx = Context::new();
    let mut m = module(&ctx, &["f"]);
    let r = registry();
    let mut mgr = OpPassManager::new("any");
    mgr.parse_elements("test-noop,func.func(test-mark{tag=w})", &r).unwrap();
    let mut diags = Vec::new();
    assert_eq!(mgr.run_on_body(&ctx, &mut m.body, &mut diags), Ok(true));
    assert_eq!(marks_of(&ctx, &m), vec![("f".into(), "w".into())]);
    let mut mgr = OpPassManager::new("any");
    mgr.parse_elements("test-noop", &r).unwrap();
    assert_eq!(mgr.run_on_body(&ctx, &mut m.body, &mut diags), Ok(false));
    let _ = Location::UNKNOWN;
}
