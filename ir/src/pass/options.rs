//! Pass options: declarations ([`OptionSpec`]: name, kind, default, description), parsing of
//! MLIR's `{key=value key2 ...}` option strings with LLVM `cl::opt` value rules and messages,
//! and printing in `--dump-pass-pipeline` form (sorted by name, defaults expanded).

use std::fmt::Write as _;

/// An integer option's C++ type in MLIR (it decides the range and the name shown in help).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IntKind {
    /// `int` (i32).
    Int,
    /// `long` (i64).
    Long,
    /// `uint` (u32).
    UInt,
    /// `ulong` (u64).
    ULong,
}

impl IntKind {
    /// The name LLVM prints for the type (`<long>`).
    pub fn type_name(self) -> &'static str {
        match self {
            IntKind::Int => "int",
            IntKind::Long => "long",
            IntKind::UInt => "uint",
            IntKind::ULong => "ulong",
        }
    }
    fn range(self) -> (i128, i128) {
        match self {
            IntKind::Int => (i32::MIN as i128, i32::MAX as i128),
            IntKind::Long => (i64::MIN as i128, i64::MAX as i128),
            IntKind::UInt => (0, u32::MAX as i128),
            IntKind::ULong => (0, u64::MAX as i128),
        }
    }
    fn error_name(self) -> &'static str {
        match self {
            IntKind::Int => "integer",
            k => k.type_name(),
        }
    }
}

/// One value of an enumeration option.
#[derive(Copy, Clone, Debug)]
pub struct EnumValue {
    pub name: &'static str,
    pub description: &'static str,
}

/// The kind of value an option takes.
#[derive(Copy, Clone, Debug)]
pub enum OptionKind {
    Bool,
    Int(IntKind),
    Str,
    Enum(&'static [EnumValue]),
    /// A comma-separated list of strings (`a,b` or `{a,b}`).
    StrList,
    /// A comma-separated list of integers.
    IntList(IntKind),
}

impl OptionKind {
    /// The `<type>` shown by `--list-passes` (empty for flags).
    pub fn value_name(&self) -> &'static str {
        match self {
            OptionKind::Bool => "",
            OptionKind::Int(k) | OptionKind::IntList(k) => k.type_name(),
            OptionKind::Str | OptionKind::StrList => "string",
            OptionKind::Enum(_) => "value",
        }
    }
}

/// A declared pass option.
#[derive(Copy, Clone, Debug)]
pub struct OptionSpec {
    pub name: &'static str,
    pub kind: OptionKind,
    /// The default in option syntax (`"10"`, `"true"`, `"normal"`, `""` for an empty list).
    pub default: &'static str,
    pub description: &'static str,
}

/// A parsed option value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    Bool(bool),
    Int(i128),
    Str(String),
    Enum(&'static str),
    StrList(Vec<String>),
    IntList(Vec<i128>),
}

/// The option values of one pass instance, one per declared option.
#[derive(Clone, Debug)]
pub struct PassOptions {
    specs: &'static [OptionSpec],
    values: Vec<OptionValue>,
}

impl PassOptions {
    /// No options at all.
    pub fn none() -> Self {
        PassOptions {
            specs: &[],
            values: Vec::new(),
        }
    }

    /// Every option at its default. Panics if a declared default does not parse (a bug in the
    /// declaration, caught by the registry tests).
    pub fn defaults(specs: &'static [OptionSpec]) -> Self {
        let values = specs
            .iter()
            .map(|s| match parse_value(s, Some(s.default), None) {
                Ok(v) => v,
                Err(e) => panic!("bad default of pass option '{}': {e}", s.name),
            })
            .collect();
        PassOptions { specs, values }
    }

    /// Parses an MLIR option string (the text between `{` and `}`) over the defaults.
    /// The error is LLVM's wording (`no such option foo`, `for the --max-iterations option:
    /// 'abc' value invalid for long argument!`).
    pub fn parse(specs: &'static [OptionSpec], text: &str) -> Result<Self, String> {
        let mut opts = Self::defaults(specs);
        opts.parse_into(text)?;
        Ok(opts)
    }

    /// Parses `text` into these options (later occurrences win; list options append).
    pub fn parse_into(&mut self, text: &str) -> Result<(), String> {
        let mut rest = text;
        while !rest.is_empty() {
            let (key, value, r) = next_arg(rest);
            rest = r;
            if key.is_empty() {
                continue;
            }
            let Some(i) = self.specs.iter().position(|s| s.name == key) else {
                return Err(format!("no such option {key}"));
            };
            let spec = &self.specs[i];
            let prev = std::mem::replace(&mut self.values[i], OptionValue::Bool(false));
            match parse_value(spec, value, Some(prev.clone())) {
                Ok(v) => self.values[i] = v,
                Err(e) => {
                    self.values[i] = prev;
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    pub fn specs(&self) -> &'static [OptionSpec] {
        self.specs
    }
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }
    /// The value of option `name`. Panics if the pass declares no such option (a bug).
    pub fn get(&self, name: &str) -> &OptionValue {
        match self.specs.iter().position(|s| s.name == name) {
            Some(i) => &self.values[i],
            None => panic!("pass has no option named '{name}'"),
        }
    }
    pub fn bool(&self, name: &str) -> bool {
        match self.get(name) {
            OptionValue::Bool(b) => *b,
            v => panic!("option '{name}' is not a flag: {v:?}"),
        }
    }
    pub fn int(&self, name: &str) -> i128 {
        match self.get(name) {
            OptionValue::Int(i) => *i,
            v => panic!("option '{name}' is not an integer: {v:?}"),
        }
    }
    pub fn str(&self, name: &str) -> &str {
        match self.get(name) {
            OptionValue::Str(s) => s,
            OptionValue::Enum(s) => s,
            v => panic!("option '{name}' is not a string: {v:?}"),
        }
    }
    pub fn str_list(&self, name: &str) -> &[String] {
        match self.get(name) {
            OptionValue::StrList(v) => v,
            v => panic!("option '{name}' is not a string list: {v:?}"),
        }
    }
    pub fn int_list(&self, name: &str) -> &[i128] {
        match self.get(name) {
            OptionValue::IntList(v) => v,
            v => panic!("option '{name}' is not an integer list: {v:?}"),
        }
    }

    /// `{a=1 b=true}` as `--dump-pass-pipeline` prints it: sorted by name, separated by one
    /// space; empty lists print as nothing (so MLIR's double spaces appear). Empty string if
    /// the pass has no options.
    pub fn to_text(&self) -> String {
        if self.specs.is_empty() {
            return String::new();
        }
        let mut order: Vec<usize> = (0..self.specs.len()).collect();
        order.sort_by_key(|&i| self.specs[i].name);
        let mut s = String::from("{");
        for (n, &i) in order.iter().enumerate() {
            if n > 0 {
                s.push(' ');
            }
            let name = self.specs[i].name;
            match &self.values[i] {
                OptionValue::Bool(b) => {
                    let _ = write!(s, "{name}={b}");
                }
                OptionValue::Int(v) => {
                    let _ = write!(s, "{name}={v}");
                }
                OptionValue::Str(v) => {
                    let _ = write!(s, "{name}={}", escape_value(v));
                }
                OptionValue::Enum(v) => {
                    let _ = write!(s, "{name}={v}");
                }
                OptionValue::StrList(v) if !v.is_empty() => {
                    let items: Vec<String> = v.iter().map(|x| escape_value(x)).collect();
                    let _ = write!(s, "{name}={{{}}}", items.join(","));
                }
                OptionValue::IntList(v) if !v.is_empty() => {
                    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                    let _ = write!(s, "{name}={{{}}}", items.join(","));
                }
                _ => {}
            }
        }
        s.push('}');
        s
    }
}

/// MLIR's `printOptionValue` for strings: wrap in `{}` when a space comes before any quote or
/// brace.
fn escape_value(v: &str) -> String {
    let space = v.find(' ');
    let esc = v.find(['{', '\'', '"']);
    match (space, esc) {
        (Some(s), e) if e.is_none_or(|e| s < e) => format!("{{{v}}}"),
        _ => v.to_string(),
    }
}

/// Trims the text and drops one level of `'...'`, `"..."` or `{...}` around it (MLIR's
/// `extractArgAndUpdateOptions`).
fn unescape(s: &str) -> &str {
    let s = s.trim();
    if s.len() <= 2 {
        return s;
    }
    for (open, close) in [('\'', '\''), ('"', '"'), ('{', '}')] {
        if s.starts_with(open) && s.ends_with(close) {
            return s[1..s.len() - 1].trim();
        }
    }
    s
}

/// Index of the character closing the quote at `i` (or `i` if unclosed), MLIR's
/// `tryProcessPunct`.
fn skip_quote(b: &[u8], i: usize) -> usize {
    let q = b[i];
    match b[i + 1..].iter().position(|&c| c == q) {
        Some(p) => i + 1 + p,
        None => i,
    }
}

/// Splits the next `key[=value]` off an option string: (key, value (`None` for a bare flag),
/// rest). Follows MLIR's `parseNextArg`: values end at a space outside quotes and braces.
fn next_arg(s: &str) -> (&str, Option<&str>, &str) {
    let b = s.as_bytes();
    let mut i = 0;
    loop {
        if i == b.len() || b[i] == b' ' {
            return (unescape(&s[..i]), None, s[i..].trim_start());
        }
        if b[i] == b'=' {
            break;
        }
        i += 1;
    }
    let key = unescape(&s[..i]);
    let v = &s[i + 1..];
    let vb = v.as_bytes();
    let mut j = 0;
    while j < vb.len() && vb[j] != b' ' {
        match vb[j] {
            b'\'' | b'"' => j = skip_quote(vb, j),
            b'{' => {
                let mut depth = 1;
                j += 1;
                while j < vb.len() {
                    match vb[j] {
                        b'\'' | b'"' => j = skip_quote(vb, j),
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                if j == vb.len() {
                    break;
                }
            }
            _ => {}
        }
        j += 1;
    }
    let j = j.min(vb.len());
    (key, Some(unescape(&v[..j])), v[j..].trim_start())
}

/// Splits a list value at top-level commas (outside quotes and braces), unescaping each item.
fn split_list(s: &str) -> Vec<&str> {
    if s.is_empty() {
        return Vec::new();
    }
    let b = s.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i, mut depth) = (0, 0, 0usize);
    while i < b.len() {
        match b[i] {
            b'\'' | b'"' => i = skip_quote(b, i),
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                out.push(unescape(&s[start..i]));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(unescape(&s[start..]));
    out
}

/// `StringRef::getAsInteger(0, ...)`: optional `-`, radix prefixes `0x`, `0b`, `0o`, and a
/// leading `0` for octal.
fn parse_llvm_int(s: &str) -> Option<i128> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (radix, body) = if let Some(r) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        (16, r)
    } else if let Some(r) = digits.strip_prefix("0b").or_else(|| digits.strip_prefix("0B")) {
        (2, r)
    } else if let Some(r) = digits.strip_prefix("0o") {
        (8, r)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let v = i128::from_str_radix(body, radix).ok()?;
    Some(if neg { -v } else { v })
}

fn parse_int(spec: &OptionSpec, k: IntKind, v: &str) -> Result<i128, String> {
    let (lo, hi) = k.range();
    match parse_llvm_int(v) {
        Some(x) if x >= lo && x <= hi => Ok(x),
        _ => Err(format!(
            "for the --{} option: '{v}' value invalid for {} argument!",
            spec.name,
            k.error_name()
        )),
    }
}

/// Parses one occurrence of an option. `value` is `None` for the bare-flag form; `prev` is
/// the current value (list options append to it).
fn parse_value(spec: &OptionSpec, value: Option<&str>, prev: Option<OptionValue>) -> Result<OptionValue, String> {
    let name = spec.name;
    if let OptionKind::Bool = spec.kind {
        return match value.unwrap_or("") {
            "" | "true" | "TRUE" | "True" | "1" => Ok(OptionValue::Bool(true)),
            "false" | "FALSE" | "False" | "0" => Ok(OptionValue::Bool(false)),
            v => Err(format!(
                "for the --{name} option: '{v}' is invalid value for boolean argument! Try 0 or 1"
            )),
        };
    }
    let Some(v) = value else {
        return Err(format!("for the --{name} option: requires a value!"));
    };
    match spec.kind {
        OptionKind::Bool => unreachable!(),
        OptionKind::Int(k) => Ok(OptionValue::Int(parse_int(spec, k, v)?)),
        OptionKind::Str => Ok(OptionValue::Str(v.to_string())),
        OptionKind::Enum(values) => match values.iter().find(|e| e.name == v) {
            Some(e) => Ok(OptionValue::Enum(e.name)),
            None => Err(format!("for the --{name} option: Cannot find option named '{v}'!")),
        },
        OptionKind::StrList => {
            let mut items = match prev {
                Some(OptionValue::StrList(p)) => p,
                _ => Vec::new(),
            };
            items.extend(split_list(v).into_iter().map(str::to_string));
            Ok(OptionValue::StrList(items))
        }
        OptionKind::IntList(k) => {
            let mut items = match prev {
                Some(OptionValue::IntList(p)) => p,
                _ => Vec::new(),
            };
            for item in split_list(v) {
                items.push(parse_int(spec, k, item)?);
            }
            Ok(OptionValue::IntList(items))
        }
    }
}

/// The `--list-passes` lines of one option, with '-' at column `dash_col`.
pub(crate) fn help_lines(spec: &OptionSpec, dash_col: usize, out: &mut String) {
    let text = option_help_text(spec);
    let mut desc = spec.description.to_string();
    if !spec.default.is_empty() {
        let _ = write!(desc, " (default: {})", spec.default);
    }
    let pad = dash_col.saturating_sub(4 + text.len()).max(1);
    let _ = writeln!(out, "    {text}{:pad$}- {desc}", "");
    if let OptionKind::Enum(values) = spec.kind {
        for e in values {
            let t = format!("={}", e.name);
            let pad = dash_col.saturating_sub(2 + 4 + t.len()).max(1);
            let _ = writeln!(out, "    {t}{:pad$}-   {}", "", e.description);
        }
    }
}

/// `--name=<type>` (or `--name` for flags).
pub(crate) fn option_help_text(spec: &OptionSpec) -> String {
    match spec.kind.value_name() {
        "" => format!("--{}", spec.name),
        t => format!("--{}=<{t}>", spec.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REGION: &[EnumValue] = &[
        EnumValue {
            name: "disabled",
            description: "off",
        },
        EnumValue {
            name: "normal",
            description: "on",
        },
    ];
    static SPECS: &[OptionSpec] = &[
        OptionSpec {
            name: "top-down",
            kind: OptionKind::Bool,
            default: "true",
            description: "",
        },
        OptionSpec {
            name: "max-iterations",
            kind: OptionKind::Int(IntKind::Long),
            default: "10",
            description: "",
        },
        OptionSpec {
            name: "count",
            kind: OptionKind::Int(IntKind::UInt),
            default: "4",
            description: "",
        },
        OptionSpec {
            name: "region-simplify",
            kind: OptionKind::Enum(REGION),
            default: "normal",
            description: "",
        },
        OptionSpec {
            name: "disable-patterns",
            kind: OptionKind::StrList,
            default: "",
            description: "",
        },
        OptionSpec {
            name: "pipeline",
            kind: OptionKind::Str,
            default: "canonicalize",
            description: "",
        },
        OptionSpec {
            name: "sizes",
            kind: OptionKind::IntList(IntKind::Long),
            default: "",
            description: "",
        },
    ];

    #[test]
    fn defaults_print_sorted_with_empty_lists() {
        let o = PassOptions::defaults(SPECS);
        assert_eq!(
            o.to_text(),
            "{count=4  max-iterations=10 pipeline=canonicalize region-simplify=normal  top-down=true}"
        );
    }

    #[test]
    fn parses_values_like_llvm() {
        let o = PassOptions::parse(
            SPECS,
            "max-iterations=0x10 top-down=0 region-simplify=disabled disable-patterns=a,b sizes={1,-2} pipeline={cse canonicalize}",
        )
        .unwrap();
        assert_eq!(o.int("max-iterations"), 16);
        assert!(!o.bool("top-down"));
        assert_eq!(o.str("region-simplify"), "disabled");
        assert_eq!(o.str_list("disable-patterns"), ["a", "b"]);
        assert_eq!(o.int_list("sizes"), [1, -2]);
        assert_eq!(o.str("pipeline"), "cse canonicalize");
        assert_eq!(
            o.to_text(),
            "{count=4 disable-patterns={a,b} max-iterations=16 pipeline={cse canonicalize} region-simplify=disabled sizes={1,-2} top-down=false}"
        );
        // a bare flag means true; later occurrences win; octal like LLVM
        let o = PassOptions::parse(SPECS, "top-down=false top-down max-iterations=010").unwrap();
        assert!(o.bool("top-down"));
        assert_eq!(o.int("max-iterations"), 8);
        // quoted list items
        let o = PassOptions::parse(SPECS, "disable-patterns=\"a b\"").unwrap();
        assert_eq!(o.str_list("disable-patterns"), ["a b"]);
        assert!(o.to_text().contains("disable-patterns={{a b}}"));
        // empty string value
        let o = PassOptions::parse(SPECS, "pipeline=").unwrap();
        assert_eq!(o.str("pipeline"), "");
    }

    #[test]
    fn errors_use_llvm_wording() {
        let e = |t: &str| PassOptions::parse(SPECS, t).unwrap_err();
        assert_eq!(e("foo=1"), "no such option foo");
        assert_eq!(
            e("max-iterations=abc"),
            "for the --max-iterations option: 'abc' value invalid for long argument!"
        );
        assert_eq!(
            e("max-iterations"),
            "for the --max-iterations option: requires a value!"
        );
        assert_eq!(
            e("count=-1"),
            "for the --count option: '-1' value invalid for uint argument!"
        );
        assert_eq!(
            e("count=4294967296"),
            "for the --count option: '4294967296' value invalid for uint argument!"
        );
        assert_eq!(
            e("top-down=maybe"),
            "for the --top-down option: 'maybe' is invalid value for boolean argument! Try 0 or 1"
        );
        assert_eq!(
            e("region-simplify=xx"),
            "for the --region-simplify option: Cannot find option named 'xx'!"
        );
        assert_eq!(
            e("max-iterations=3,top-down=false"),
            "for the --max-iterations option: '3,top-down=false' value invalid for long argument!"
        );
        // MLIR splits ` max-iterations = 3 ` into a bare flag, then `= 3`
        assert_eq!(
            e(" max-iterations = 3 "),
            "for the --max-iterations option: requires a value!"
        );
    }

    #[test]
    fn tokenizer_keeps_braces_and_quotes_together() {
        assert_eq!(next_arg("a={x y} b=1"), ("a", Some("x y"), "b=1"));
        assert_eq!(next_arg("a='x y' b"), ("a", Some("x y"), "b"));
        assert_eq!(next_arg("a={p{q r}} z"), ("a", Some("p{q r}"), "z"));
        assert_eq!(next_arg("flag rest"), ("flag", None, "rest"));
        assert_eq!(split_list("a,{b,c},'d,e'"), vec!["a", "b,c", "d,e"]);
    }
}
