//! Pass instrumentation output in mlir-opt's formats: IR dump headers
//! (`// -----// IR Dump After CSE (cse) //----- //`) and the `--mlir-timing` report
//! (a tree of wall times, `Rest` and `Total` lines).

use std::fmt::Write as _;
use std::time::Duration;

/// When an IR dump is taken.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DumpWhen {
    Before,
    After,
    AfterFailed,
}

/// The header line of an IR dump, exactly as mlir-opt 22 prints it (without module scope):
/// `// -----// IR Dump Before CSE (cse) //----- //`,
/// `// -----// IR Dump After Canonicalizer Failed (canonicalize) //----- //`.
pub fn dump_header(when: DumpWhen, name: &str, argument: &str) -> String {
    match when {
        DumpWhen::Before => format!("// -----// IR Dump Before {name} ({argument}) //----- //"),
        DumpWhen::After => format!("// -----// IR Dump After {name} ({argument}) //----- //"),
        DumpWhen::AfterFailed => format!("// -----// IR Dump After {name} Failed ({argument}) //----- //"),
    }
}

/// Appends a whole dump (header, IR, blank line) to `out`.
pub(crate) fn write_dump(out: &mut String, when: DumpWhen, name: &str, argument: &str, ir: &str) {
    out.push_str(&dump_header(when, name, argument));
    out.push('\n');
    // as mlir-opt: the printed op, then a blank line (a top-level module prints its own
    // trailing newline, as `Operation::print` does)
    out.push_str(ir);
    out.push_str("\n\n");
}

/// One line of a timing report and the lines nested under it.
#[derive(Clone, Debug, PartialEq)]
pub struct TimingNode {
    pub name: String,
    pub wall: Duration,
    pub children: Vec<TimingNode>,
}

impl TimingNode {
    pub fn new(name: impl Into<String>, wall: Duration) -> Self {
        TimingNode {
            name: name.into(),
            wall,
            children: Vec::new(),
        }
    }
}

/// Renders mlir-opt's `--mlir-timing` report (tree display, wall time only):
///
/// ```text
/// ===-------------------------------------------------------------------------===
///                          ... Execution time report ...
/// ===-------------------------------------------------------------------------===
///   Total Execution Time: 0.0053 seconds
///
///   ----Wall Time----  ----Name----
///     0.0007 ( 12.8%)  Parser
///     0.0002 (  3.2%)  'func.func' Pipeline
///     0.0001 (  1.2%)    CSE
///     0.0043 ( 81.1%)  Rest
///     0.0053 (100.0%)  Total
/// ```
/// `Rest` is `total` minus the top-level nodes.
pub fn render_timing_report(nodes: &[TimingNode], total: Duration) -> String {
    let mut s = String::new();
    let rule = format!("==={}===", "-".repeat(73));
    let _ = writeln!(s, "{rule}");
    let _ = writeln!(s, "{:>54}", "... Execution time report ...");
    let _ = writeln!(s, "{rule}");
    let total_s = total.as_secs_f64();
    let _ = writeln!(s, "  Total Execution Time: {total_s:.4} seconds\n");
    let _ = writeln!(s, "  ----Wall Time----  ----Name----");
    fn line(s: &mut String, wall: Duration, total: f64, indent: usize, name: &str) {
        let w = wall.as_secs_f64();
        let pct = if total > 0.0 { 100.0 * w / total } else { 0.0 };
        let _ = writeln!(s, "  {w:>8.4} ({pct:>5.1}%)  {}{name}", "  ".repeat(indent));
    }
    fn walk(s: &mut String, n: &TimingNode, total: f64, indent: usize) {
        line(s, n.wall, total, indent, &n.name);
        for c in &n.children {
            walk(s, c, total, indent + 1);
        }
    }
    for n in nodes {
        walk(&mut s, n, total_s, 0);
    }
    let used: Duration = nodes.iter().map(|n| n.wall).sum();
    line(&mut s, total.saturating_sub(used), total_s, 0, "Rest");
    line(&mut s, total, total_s, 0, "Total");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_match_mlir_opt() {
        assert_eq!(
            dump_header(DumpWhen::After, "CSE", "cse"),
            "// -----// IR Dump After CSE (cse) //----- //"
        );
        assert_eq!(
            dump_header(DumpWhen::AfterFailed, "Canonicalizer", "canonicalize"),
            "// -----// IR Dump After Canonicalizer Failed (canonicalize) //----- //"
        );
        assert_eq!(
            dump_header(DumpWhen::Before, "SymbolDCE", "symbol-dce"),
            "// -----// IR Dump Before SymbolDCE (symbol-dce) //----- //"
        );
    }

    #[test]
    fn timing_report_layout() {
        let mut p = TimingNode::new("'func.func' Pipeline", Duration::from_micros(200));
        p.children.push(TimingNode::new("CSE", Duration::from_micros(100)));
        let nodes = vec![TimingNode::new("Parser", Duration::from_micros(700)), p];
        let r = render_timing_report(&nodes, Duration::from_micros(5300));
        let expected = "\
===-------------------------------------------------------------------------===
                         ... Execution time report ...
===-------------------------------------------------------------------------===
  Total Execution Time: 0.0053 seconds

  ----Wall Time----  ----Name----
    0.0007 ( 13.2%)  Parser
    0.0002 (  3.8%)  'func.func' Pipeline
    0.0001 (  1.9%)    CSE
    0.0044 ( 83.0%)  Rest
    0.0053 (100.0%)  Total
";
        assert_eq!(r, expected);
    }
}
