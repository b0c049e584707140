//! A source file's text as the parser and diagnostics read it: owned, or the file mapped into
//! memory. A mapped text gives back the pages the parser has consumed (`madvise(DONTNEED)`),
//! so a large input does not stay resident next to the IR built from it; a page given back is
//! read again from the file if something (a diagnostic, a late alias lookup) needs it.
//!
//! mlir-opt maps its input too (LLVM's `MemoryBuffer`) but keeps every page it touched.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Files smaller than this are read into memory (mapping them saves nothing).
const MAP_THRESHOLD: usize = 4 << 20;
/// Pages are given back in steps of this many bytes.
pub(crate) const RELEASE_STEP: usize = 8 << 20;
/// How much text before the parser's position stays mapped in (a value or alias name the
/// parser compares against soon after it was read).
const RELEASE_MARGIN: usize = 1 << 20;
const PAGE: usize = 4096;

/// A file's text (cheap to clone: shared).
#[derive(Clone)]
pub struct SourceText(Arc<Storage>);

enum Storage {
    Owned(String),
    /// The UTF-8-validated mapping, and how far its pages have been given back.
    Mapped { map: memmap2::Mmap, released: AtomicUsize },
}

impl SourceText {
    /// Text held in memory.
    pub fn owned(text: String) -> SourceText {
        SourceText(Arc::new(Storage::Owned(text)))
    }

    /// Reads a file: mapped if it is large and valid UTF-8 (validated a step at a time, each
    /// step's pages given back), else read into memory with invalid sequences replaced (MLIR
    /// reads bytes; the parser reports invalid UTF-8 where it matters).
    pub fn read_file(path: &std::path::Path) -> std::io::Result<SourceText> {
        let file = std::fs::File::open(path)?;
        let len = file.metadata()?.len() as usize;
        if len >= MAP_THRESHOLD {
            // SAFETY: the mapping is read-only and private; as for mlir-opt's mapped input,
            // the file must not be truncated while the tool runs.
            if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
                let text = SourceText(Arc::new(Storage::Mapped { map, released: AtomicUsize::new(0) }));
                if text.validate_utf8() {
                    text.release_all();
                    return Ok(text);
                }
            }
        }
        Ok(SourceText::owned(lossy(std::fs::read(path)?)))
    }

    /// Text read from a reader (standard input), invalid UTF-8 replaced.
    pub fn read_from(mut r: impl std::io::Read) -> std::io::Result<SourceText> {
        let mut b = Vec::new();
        r.read_to_end(&mut b)?;
        Ok(SourceText::owned(lossy(b)))
    }

    pub fn as_str(&self) -> &str {
        match &*self.0 {
            Storage::Owned(s) => s,
            // SAFETY: validated as UTF-8 when mapped (`validate_utf8`), and never written.
            Storage::Mapped { map, .. } => unsafe { std::str::from_utf8_unchecked(map) },
        }
    }

    /// Whether this text is a mapping whose pages can be given back.
    pub fn is_mapped(&self) -> bool {
        matches!(&*self.0, Storage::Mapped { .. })
    }

    /// Gives back the pages before `offset` (less a margin), if mapped and at least one
    /// release step past the last time.
    pub fn release_before(&self, offset: usize) {
        let Storage::Mapped { map, released } = &*self.0 else { return };
        let end = offset.saturating_sub(RELEASE_MARGIN) / PAGE * PAGE;
        if end < released.load(Ordering::Relaxed) + RELEASE_STEP {
            return;
        }
        // Everything from the start: pages re-read since the last release go too.
        Self::dont_need(map, end);
        released.store(end, Ordering::Relaxed);
    }

    /// Gives back every page (e.g. after parsing, or after validation).
    pub fn release_all(&self) {
        if let Storage::Mapped { map, released } = &*self.0 {
            Self::dont_need(map, map.len());
            released.store(0, Ordering::Relaxed);
        }
    }

    fn dont_need(map: &memmap2::Mmap, len: usize) {
        // SAFETY: the mapping is private and read-only: MADV_DONTNEED drops the pages from
        // this process, and a later read faults them in again from the file (unchanged).
        let _ = unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, 0, len.min(map.len())) };
    }

    /// Checks the mapping is UTF-8 a step at a time, giving back each checked step.
    fn validate_utf8(&self) -> bool {
        let Storage::Mapped { map, .. } = &*self.0 else { return true };
        let bytes: &[u8] = map;
        let mut pos = 0;
        while pos < bytes.len() {
            let end = (pos + RELEASE_STEP).min(bytes.len());
            match std::str::from_utf8(&bytes[pos..end]) {
                Ok(_) => pos = end,
                // a character cut by the step's end: go on from its start
                Err(e) if e.error_len().is_none() && end < bytes.len() && e.valid_up_to() > 0 => {
                    pos += e.valid_up_to()
                }
                Err(_) => return false,
            }
            Self::dont_need(map, pos / PAGE * PAGE);
        }
        true
    }
}

impl AsRef<str> for SourceText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Debug for SourceText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.is_mapped() { "mapped" } else { "owned" };
        write!(f, "SourceText({kind}, {} bytes)", self.as_str().len())
    }
}

fn lossy(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("xcs-source-text-{}-{name}", std::process::id()));
        std::fs::write(&p, bytes).unwrap();
        p
    }

    #[test]
    fn large_files_are_mapped_and_read_back_after_release() {
        // a multi-byte character across every step boundary
        let mut text = String::new();
        while text.len() < 3 * RELEASE_STEP {
            text.push_str("\"é\" = loc(\"x.py\":1:2)\n");
        }
        let p = temp_file("big", text.as_bytes());
        let t = SourceText::read_file(&p).unwrap();
        assert!(t.is_mapped());
        t.release_before(2 * RELEASE_STEP);
        assert_eq!(t.as_str(), text, "released pages read back from the file");
        t.release_all();
        assert_eq!(&t.as_str()[text.len() - 10..], &text[text.len() - 10..]);
        std::fs::remove_file(p).unwrap();
    }

    #[test]
    fn invalid_utf8_and_small_files_are_read_into_memory() {
        let mut bytes = vec![b'a'; MAP_THRESHOLD + 10];
        bytes[MAP_THRESHOLD] = 0xff;
        let p = temp_file("invalid", &bytes);
        let t = SourceText::read_file(&p).unwrap();
        assert!(!t.is_mapped());
        assert!(t.as_str().contains('\u{fffd}'));
        std::fs::remove_file(p).unwrap();
        let p = temp_file("small", b"x");
        let t = SourceText::read_file(&p).unwrap();
        assert!(!t.is_mapped());
        assert_eq!(t.as_str(), "x");
        t.release_before(usize::MAX); // a no-op on owned text
        assert_eq!(t.as_str(), "x");
        std::fs::remove_file(p).unwrap();
    }
}
