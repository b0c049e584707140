//! Checks on the workspace's source code itself, the structural rules of
//! `docs/architecture.md`:
//! - no dispatch on op names: outside tests and docs, each registered op's name appears as a
//!   string literal at most once in library code (its declaration);
//! - dependencies between files point one way: no cycle of `crate::`/`super::` uses between
//!   files of different folders.
//! Both read the sources as text (comments, strings and `#[cfg(test)]` modules stripped), so
//! they see what a reader sees.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The library crates and their source roots, relative to the workspace.
const CRATES: &[&str] = &["ir", "dialects", "passes", "lowering", "tools", "frontend", "test/lib", "mlir-bridge"];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// True for files that only hold tests (`tests.rs`, anything under a `tests/` folder).
fn is_test_file(p: &Path) -> bool {
    p.file_name().is_some_and(|n| n == "tests.rs") || p.components().any(|c| c.as_os_str() == "tests")
}

/// The text with comments blanked out, string literals kept only when `keep_strings`, and
/// everything from the first `#[cfg(test)]` on dropped (test modules close the files).
fn code_of(text: &str, keep_strings: bool) -> String {
    let text = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                let lit = &text[start..i.min(b.len())];
                out.push_str(if keep_strings { lit } else { "\"\"" });
            }
            b'\'' if b.get(i + 2) == Some(&b'\'') || (b.get(i + 1) == Some(&b'\\') && b.get(i + 3) == Some(&b'\'')) => {
                // a char literal ('"', '\\'), not a lifetime
                let len = if b[i + 1] == b'\\' { 4 } else { 3 };
                out.push_str("' '");
                i += len;
            }
            c => {
                // keep UTF-8 intact
                let ch_len = text[i..].chars().next().map_or(1, |c| c.len_utf8());
                if c.is_ascii() {
                    out.push(c as char);
                } else {
                    out.push_str(&text[i..i + ch_len]);
                }
                i += ch_len;
            }
        }
    }
    out
}

/// The library source files of the workspace (not tests, benches, examples or build scripts,
/// nor modules declared under `#[cfg(test)]`).
fn library_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for c in CRATES {
        rust_files(&workspace().join(c).join("src"), &mut files);
    }
    let test_modules: BTreeSet<PathBuf> = files.iter().flat_map(|f| cfg_test_children(f)).collect();
    files.retain(|p| !is_test_file(p) && !test_modules.contains(p));
    files
}

/// The files of the modules that `file` declares under `#[cfg(test)]` (`#[cfg(test)] mod x;`).
fn cfg_test_children(file: &Path) -> Vec<PathBuf> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let dir = match file.file_stem().and_then(|s| s.to_str()) {
        Some("lib" | "main" | "mod") => file.parent().unwrap().to_path_buf(),
        Some(stem) => file.parent().unwrap().join(stem),
        None => return Vec::new(),
    };
    let mut out = Vec::new();
    for part in text.split("#[cfg(test)]").skip(1) {
        let decl = part.trim_start().trim_start_matches("pub ").trim_start_matches("pub(crate) ");
        if let Some(rest) = decl.strip_prefix("mod ") {
            let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if rest[name.len()..].trim_start().starts_with(';') {
                out.push(dir.join(format!("{name}.rs")));
                out.push(dir.join(&name).join("mod.rs"));
            }
        }
    }
    out
}

#[test]
fn op_names_appear_only_in_their_declarations() {
    let ctx = xcs_dialects::context();
    let names: BTreeSet<&str> = ctx.registered_ops().map(|d| d.name).collect();
    assert!(names.contains("tensor.add") && names.contains("func.call"));
    let mut found: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for f in library_files() {
        let code = code_of(&std::fs::read_to_string(&f).unwrap(), true);
        let rel = f.strip_prefix(workspace()).unwrap().display().to_string();
        for (line_no, line) in code.lines().enumerate() {
            for lit in line.split('"').skip(1).step_by(2) {
                if let Some(&n) = names.get(lit) {
                    found.entry(n).or_default().push(format!("{rel}:{}", line_no + 1));
                }
            }
        }
    }
    let repeated: Vec<String> =
        found.iter().filter(|(_, at)| at.len() > 1).map(|(n, at)| format!("\"{n}\" at {}", at.join(", "))).collect();
    assert!(
        repeated.is_empty(),
        "op names spelled out more than once in library code (use typed views, interfaces or XOp::DEF):\n{}",
        repeated.join("\n")
    );
}

/// The module path of a source file (`dialects/src/tensor/fold.rs` -> `["tensor", "fold"]`).
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "lib" | "main" | "mod") || parts.is_empty() && stem == "mod" {
        parts.push(stem.to_string());
    }
    if parts.first().is_some_and(|p| p == "bin") {
        parts.clear();
    }
    parts
}

/// What a module file defines and re-exports: the names of items it defines, its `pub use`
/// re-exports (name -> the path it stands for) and its glob re-exports.
#[derive(Default)]
struct ModuleItems {
    defined: BTreeSet<String>,
    reexports: BTreeMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
}

fn module_items(code: &str) -> ModuleItems {
    let mut items = ModuleItems::default();
    for kw in ["fn", "struct", "enum", "const", "static", "type", "trait", "mod", "union"] {
        let pat = format!("{kw} ");
        let mut rest = code;
        while let Some(i) = rest.find(&pat) {
            let before_ok = i == 0 || !rest.as_bytes()[i - 1].is_ascii_alphanumeric() && rest.as_bytes()[i - 1] != b'_';
            let after = &rest[i + pat.len()..];
            let name: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if before_ok && !name.is_empty() {
                items.defined.insert(name);
            }
            rest = &rest[i + pat.len()..];
        }
    }
    for stmt in code.split(';') {
        let stmt = stmt.trim();
        let Some(u) = stmt.strip_prefix("pub use ") else { continue };
        let mut paths = Vec::new();
        expand_use_named(&[], u.trim(), &mut paths);
        for (name, path) in paths {
            match name {
                Some(n) => {
                    items.reexports.insert(n, path);
                }
                None => items.globs.push(path),
            }
        }
    }
    items
}

/// Like [`expand_use`], with the name each path is visible under (`None` for a glob).
fn expand_use_named(prefix: &[String], tree: &str, out: &mut Vec<(Option<String>, Vec<String>)>) {
    let mut plain = Vec::new();
    expand_use(prefix, tree, &mut plain);
    let mut globs = Vec::new();
    collect_globs(prefix, tree, &mut globs);
    for p in plain {
        let name = p.last().cloned();
        out.push((name, p));
    }
    for g in globs {
        out.push((None, g));
    }
}

fn collect_globs(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let mut base = prefix.to_vec();
        base.extend(tree[..open].split("::").map(str::trim).filter(|s| !s.is_empty()).map(String::from));
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        for part in inner.split(',') {
            collect_globs(&base, part, out);
        }
    } else if let Some(head) = tree.strip_suffix("*") {
        let mut p = prefix.to_vec();
        p.extend(head.split("::").map(str::trim).filter(|s| !s.is_empty()).map(String::from));
        out.push(p);
    }
}

/// The file-level dependency graph of one crate: for each file, the files whose items it uses
/// through `crate::`, `super::` or `self::` paths (or a child module's name). A path to an item
/// that a module only re-exports (`pub use`) leads to the file that defines it.
fn crate_graph(krate: &str) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let src = workspace().join(krate).join("src");
    let library: BTreeSet<PathBuf> = library_files().into_iter().collect();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.retain(|p| library.contains(p) && !p.components().any(|c| c.as_os_str() == "bin"));
    let modules: BTreeMap<Vec<String>, PathBuf> = files.iter().map(|f| (module_path(&src, f), f.clone())).collect();
    let codes: BTreeMap<PathBuf, String> =
        files.iter().map(|f| (f.clone(), code_of(&std::fs::read_to_string(f).unwrap(), false))).collect();
    let items: BTreeMap<Vec<String>, ModuleItems> =
        modules.iter().map(|(m, f)| (m.clone(), module_items(&codes[f]))).collect();
    // `#[macro_export]` macros live at the crate root but are defined in their file
    let mut macros: BTreeMap<String, PathBuf> = BTreeMap::new();
    for (f, code) in &codes {
        for part in code.split("macro_rules!").skip(1) {
            let name: String = part.trim_start().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            macros.insert(name, f.clone());
        }
    }
    let mut graph = BTreeMap::new();
    for f in &files {
        let me = module_path(&src, f);
        let mut deps = BTreeSet::new();
        for path in paths_in(&codes[f]) {
            // `use super::*` (inline modules' imports of their file) names no item
            if path.iter().all(|p| p == "super" || p == "self") {
                continue;
            }
            let Some(abs) = absolute(&me, &path, &modules) else { continue };
            let target = match abs.as_slice() {
                [m] if macros.contains_key(m) => macros.get(m),
                _ => resolve(&abs, &modules, &items, 0),
            };
            if let Some(target) = target {
                if target != f {
                    deps.insert(target.clone());
                }
            }
        }
        if std::env::var_os("XCS_DEBUG_DEPS").is_some() {
            for d in &deps {
                eprintln!("{} -> {}", f.display(), d.display());
            }
        }
        graph.insert(f.clone(), deps);
    }
    graph
}

/// `path` (as written in module `me`) as a path from the crate root, if it is one of the
/// crate's own paths.
fn absolute(me: &[String], path: &[String], modules: &BTreeMap<Vec<String>, PathBuf>) -> Option<Vec<String>> {
    match path[0].as_str() {
        "crate" => Some(path[1..].to_vec()),
        "super" => {
            let ups = path.iter().take_while(|p| *p == "super").count();
            let mut base = me.to_vec();
            for _ in 0..ups {
                base.pop();
            }
            base.extend(path[ups..].iter().cloned());
            Some(base)
        }
        "self" => Some(me.iter().chain(&path[1..]).cloned().collect()),
        first => {
            // a child module of this one, used by its bare name
            let mut child = me.to_vec();
            child.push(first.to_string());
            modules.contains_key(&child).then(|| child.into_iter().chain(path[1..].iter().cloned()).collect())
        }
    }
}

/// The file that defines what the crate-root path `abs` names: the longest module prefix's file,
/// or, when that module only re-exports the next segment, the file the re-export leads to.
fn resolve<'m>(
    abs: &[String],
    modules: &'m BTreeMap<Vec<String>, PathBuf>,
    items: &BTreeMap<Vec<String>, ModuleItems>,
    depth: usize,
) -> Option<&'m PathBuf> {
    let n = (0..=abs.len()).rev().find(|&n| modules.contains_key(&abs[..n]))?;
    let module = &abs[..n];
    let file = &modules[module];
    let (Some(item), Some(it)) = (abs.get(n), items.get(module)) else { return Some(file) };
    if depth > 8 || it.defined.contains(item) {
        return Some(file);
    }
    if let Some(target) = it.reexports.get(item) {
        if let Some(t) = absolute(module, target, modules).and_then(|t| resolve(&t, modules, items, depth + 1)) {
            return Some(t);
        }
    }
    for g in &it.globs {
        let Some(mut t) = absolute(module, g, modules) else { continue };
        t.push(item.clone());
        if let Some(found) = resolve(&t, modules, items, depth + 1) {
            let defines = modules.iter().find(|(_, f)| *f == found).and_then(|(m, _)| items.get(m)).is_some_and(|i| i.defined.contains(item));
            if defines {
                return Some(found);
            }
        }
    }
    Some(file)
}

/// The `a::b::c` paths of the code (each as its segments), including those inside `use` groups
/// (`use crate::x::{y, z::w}` gives `crate::x::y` and `crate::x::z::w`).
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for stmt in code.split(';') {
        let stmt = stmt.trim();
        if let Some(u) = stmt.strip_prefix("use ").or_else(|| stmt.strip_prefix("pub use ")).or_else(|| {
            stmt.find(" use ").filter(|&i| stmt[..i].trim_start().starts_with("pub(")).map(|i| &stmt[i + 5..])
        }) {
            expand_use(&[], u.trim(), &mut out);
        }
    }
    // inline paths: runs of identifiers joined by `::` starting with crate/super/self
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let is_start = (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || matches!(bytes[i - 1], b'_' | b':' | b'$')))
            && ["crate::", "super::", "self::"].iter().any(|p| code[i..].starts_with(p));
        if !is_start {
            i += 1;
            continue;
        }
        let mut j = i;
        let mut segs = Vec::new();
        loop {
            let s = j;
            while j < bytes.len() && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_') {
                j += 1;
            }
            if s == j {
                break;
            }
            segs.push(code[s..j].to_string());
            if code[j..].starts_with("::") && code[j + 2..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                j += 2;
            } else {
                break;
            }
        }
        out.push(segs);
        i = j.max(i + 1);
    }
    out
}

fn expand_use(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head: Vec<String> = tree[..open].split("::").map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect();
        let mut base = prefix.to_vec();
        base.extend(head);
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let mut depth = 0;
        let mut start = 0;
        for (k, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand_use(&base, &inner[start..k], out);
                    start = k + 1;
                }
                _ => {}
            }
        }
        expand_use(&base, &inner[start..], out);
    } else {
        let item = tree.split(" as ").next().unwrap_or("").trim();
        let mut p = prefix.to_vec();
        p.extend(item.split("::").map(str::trim).filter(|s| !s.is_empty() && *s != "*").map(String::from));
        if !p.is_empty() && p != ["self"] {
            if p.last().is_some_and(|l| l == "self") {
                p.pop();
            }
            out.push(p);
        }
    }
}

/// The strongly connected components of a graph with more than one node (Tarjan).
fn cycles(graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    struct State<'g> {
        graph: &'g BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'g PathBuf, usize>,
        low: BTreeMap<&'g PathBuf, usize>,
        stack: Vec<&'g PathBuf>,
        on_stack: BTreeSet<&'g PathBuf>,
        out: Vec<Vec<PathBuf>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g PathBuf) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let Some((w, _)) = s.graph.get_key_value(w) else { continue };
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                s.out.push(comp);
            }
        }
    }
    let mut s = State { graph, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), on_stack: BTreeSet::new(), out: Vec::new() };
    for v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn no_cycles_between_files_of_different_folders() {
    let mut bad = Vec::new();
    for krate in CRATES {
        for comp in cycles(&crate_graph(krate)) {
            let folders: BTreeSet<&Path> = comp.iter().filter_map(|f| f.parent()).collect();
            if folders.len() > 1 {
                let mut names: Vec<String> =
                    comp.iter().map(|f| f.strip_prefix(workspace()).unwrap().display().to_string()).collect();
                names.sort();
                bad.push(names.join(" <-> "));
            }
        }
    }
    assert!(bad.is_empty(), "files of different folders use each other:\n{}", bad.join("\n"));
}

#[test]
fn the_dependency_scanner_sees_uses() {
    let code = code_of("use crate::a::{b, c::d as e};\nfn f() { super::x::y(); } // crate::not::this\n", false);
    let paths = paths_in(&code);
    let has = |p: &[&str]| paths.iter().any(|q| q.iter().map(String::as_str).eq(p.iter().copied()));
    assert!(has(&["crate", "a", "b"]) && has(&["crate", "a", "c", "d"]) && has(&["super", "x", "y"]), "{paths:?}");
    assert!(!has(&["crate", "not", "this"]));
}
