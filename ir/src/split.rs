//! `--split-input-file[=marker]` (MLIR's `splitAndProcessBuffer` in `ToolUtilities.cpp`): the
//! input is cut at every occurrence of the marker (default `// -----`), each chunk is processed
//! on its own, and the outputs are joined with `--output-split-marker`. Chunks keep their
//! position in the whole file, so diagnostics name the file's own lines and columns.
//!
//! MLIR's quirks are kept: the text is split at the marker minus its last two characters, and a
//! piece that does not continue with them (a "near miss", e.g. `// ----`, or the marker at the
//! very end of the file) is merged back with a warning; a chunk starts right after the marker
//! (the rest of the marker's line belongs to it); an empty first chunk makes the next piece the
//! first one, without dropping its leading characters (mlir-opt then fails to parse it).

/// The default input and output split marker.
pub const DEFAULT_SPLIT_MARKER: &str = "// -----";

/// One chunk of the input.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Chunk<'a> {
    pub text: &'a str,
    /// Byte offset of the chunk in the whole input.
    pub offset: usize,
    /// Lines of the input before the chunk's first line (what `ParseOptions::line_offset`
    /// takes): the chunk's first line is line `line_offset + 1` of the file.
    pub line_offset: u32,
    /// Bytes before the chunk on its first line (non-zero when text follows the marker on the
    /// marker's line): the chunk's first line starts at column `col_offset + 1`.
    pub col_offset: u32,
}

/// The chunks of an input, and the byte offsets of near misses to warn about.
#[derive(Clone, Debug, Default)]
pub struct Split<'a> {
    pub chunks: Vec<Chunk<'a>>,
    pub near_misses: Vec<usize>,
}

/// Splits `src` at `marker`. An empty marker means no splitting (one chunk, the whole input).
/// An empty input yields no chunk (mlir-opt then prints nothing).
pub fn split_input<'a>(src: &'a str, marker: &str) -> Split<'a> {
    if marker.is_empty() {
        return Split { chunks: vec![chunk(src, 0, src.len())], near_misses: Vec::new() };
    }
    const CHECK_LEN: usize = 2;
    // Cut at the marker minus its last two characters (the whole marker if it is that short).
    let (cut, tail) = if marker.len() > CHECK_LEN && marker.is_char_boundary(marker.len() - CHECK_LEN) {
        marker.split_at(marker.len() - CHECK_LEN)
    } else {
        (marker, "")
    };
    let mut raw: Vec<(usize, usize)> = Vec::new(); // (start, end) byte ranges
    let mut start = 0;
    for (i, _) in src.match_indices(cut) {
        raw.push((start, i));
        start = i + cut.len();
    }
    raw.push((start, src.len()));

    let mut out = Split::default();
    let mut prev: Option<(usize, usize)> = None;
    for (s, e) in raw {
        let piece = &src[s..e];
        let Some((ps, pe)) = prev.filter(|&(ps, pe)| pe > ps) else {
            prev = Some((s, e));
            continue;
        };
        // MLIR checks the character after the marker against '0' (it means '-'); kept as is.
        let expected = tail.is_empty()
            || (piece.starts_with(tail) && piece.len() > tail.len() && piece.as_bytes()[tail.len()] != b'0');
        if expected {
            out.chunks.push(chunk(src, ps, pe));
            prev = Some((s + tail.len(), e));
        } else {
            out.near_misses.push(s);
            prev = Some((ps, e));
        }
    }
    if let Some((ps, pe)) = prev {
        if pe > ps {
            out.chunks.push(chunk(src, ps, pe));
        }
    }
    out
}

fn chunk(src: &str, start: usize, end: usize) -> Chunk<'_> {
    let before = &src[..start];
    let line_offset = memchr::memchr_iter(b'\n', before.as_bytes()).count() as u32;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Chunk { text: &src[start..end], offset: start, line_offset, col_offset: (start - line_start) as u32 }
}

/// Joins the outputs of the chunks as mlir-opt does: `marker` and a newline between them.
pub fn join_outputs<S: AsRef<str>>(outputs: &[S], marker: &str) -> String {
    let mut s = String::new();
    for (i, o) in outputs.iter().enumerate() {
        if i > 0 {
            s.push_str(marker);
            s.push('\n');
        }
        s.push_str(o.as_ref());
    }
    s
}

/// The warning mlir-opt prints for a near miss at byte `offset` of `file`.
pub fn near_miss_warning(sources: &crate::render::SourceMap, file: &str, offset: usize) -> String {
    sources.render_at_offset(
        Some((file, offset)),
        0,
        crate::diag::Severity::Warning,
        "near miss with file split marker",
        crate::render::RenderOptions::default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts<'a>(s: &Split<'a>) -> Vec<&'a str> {
        s.chunks.iter().map(|c| c.text).collect()
    }

    #[test]
    fn splits_and_keeps_positions() {
        let src = "a\n// -----\nb\nc\n// -----\nd\n";
        let s = split_input(src, DEFAULT_SPLIT_MARKER);
        assert_eq!(texts(&s), vec!["a\n", "\nb\nc\n", "\nd\n"]);
        assert_eq!(s.chunks[1].line_offset, 1);
        assert_eq!(s.chunks[1].col_offset, 8);
        assert_eq!(s.chunks[2].line_offset, 4);
        assert_eq!(s.chunks[2].offset, src.find("\nd").unwrap());
        assert!(s.near_misses.is_empty());
    }

    #[test]
    fn marker_anywhere_and_longer_marker() {
        // `// ------` splits too, leaving a `-` in the next chunk (as mlir-opt)
        let s = split_input("a\n// ------\nb\nx // ----- y\n", DEFAULT_SPLIT_MARKER);
        assert_eq!(texts(&s), vec!["a\n", "-\nb\nx ", " y\n"]);
        assert_eq!(s.chunks[2].line_offset, 3);
        assert_eq!(s.chunks[2].col_offset, 10);
    }

    #[test]
    fn near_misses_are_merged() {
        let src = "a\n// ----\nb\n// -----";
        let s = split_input(src, DEFAULT_SPLIT_MARKER);
        assert_eq!(texts(&s), vec![src]);
        assert_eq!(s.near_misses, vec![src.find("-\nb").unwrap(), src.len() - 2]);
        let mut sm = crate::render::SourceMap::new();
        sm.add("s5.mlir", src);
        assert_eq!(
            near_miss_warning(&sm, "s5.mlir", s.near_misses[0]),
            "s5.mlir:2:7: warning: near miss with file split marker\n// ----\n      ^\n"
        );
    }

    #[test]
    fn empty_inputs_and_leading_marker() {
        assert!(split_input("", DEFAULT_SPLIT_MARKER).chunks.is_empty());
        // a leading marker: the next piece keeps its `--` (mlir-opt fails on it)
        let s = split_input("// -----\nx\n", DEFAULT_SPLIT_MARKER);
        assert_eq!(texts(&s), vec!["--\nx\n"]);
        assert_eq!(s.chunks[0].col_offset, 6);
        // no splitting
        assert_eq!(texts(&split_input("a // ----- b", "")), vec!["a // ----- b"]);
        // a custom marker
        assert_eq!(texts(&split_input("a\n// ==\nb\n", "// ==")), vec!["a\n", "\nb\n"]);
    }

    #[test]
    fn joins_with_marker_lines() {
        assert_eq!(join_outputs(&["module {\n}\n", "", "x\n"], "// -----"), "module {\n}\n// -----\n// -----\nx\n");
    }
}
