//! File metadata: the `{-# dialect_resources: {...}, external_resources: {...} #-}` dictionary
//! (MLIR's `parseFileMetadataDictionary`), and the resource handles of `dense_resource<key>`.
//! Blobs of the `builtin` dialect go to the context's resources; external resources are kept
//! for the module; a section for any other dialect is an error, located and worded as mlir-opt
//! reports it, since XCS could not print it back.

use super::{PResult, Parser};
use crate::lexer::{Tok, Token};
use crate::resources::{Resource, ResourceBlob, ResourceValue};

impl<'s> Parser<'s> {
    /// The key of a resource (`blob1` or `"quoted key"`) at the cursor, consumed; `what` names
    /// the entry kind in the error.
    fn resource_key(&mut self, what: &str, end: u32) -> PResult<String> {
        let t = self.tok;
        let key = match t.kind {
            Tok::BareId => self.tstr(t).to_string(),
            Tok::String => match String::from_utf8(self.string_value(t)) {
                Ok(s) => s,
                Err(_) => return Err(self.error_at(t.start, "resource keys that are not valid UTF-8 are not supported")),
            },
            _ => return Err(self.error_here(format!("expected identifier key for '{what}' entry"))),
        };
        self.meta_bump(end);
        Ok(key)
    }

    /// The handle of builtin resource `key` in this parse (MLIR's `parseResourceHandle`): the
    /// first use of a key creates it.
    fn resource_handle(&mut self, key: String) -> Resource {
        if let Some(&r) = self.resources.get(key.as_str()) {
            return r;
        }
        let r = self.ctx.create_resource(&key, None);
        self.resources.insert(key, r);
        r
    }

    /// `key` of `dense_resource<key>`, after the `<`.
    pub(crate) fn parse_dense_resource_handle(&mut self) -> PResult<Resource> {
        let key = self.resource_key("resource", u32::MAX)?;
        Ok(self.resource_handle(key))
    }

    /// Advances, treating the `#-}` that ends the metadata at `end` as one token (a sentinel of
    /// kind `FileMetadata`).
    fn meta_bump(&mut self, end: u32) {
        if self.tok.kind == Tok::FileMetadata && self.tok.start == end {
            return;
        }
        self.bump();
        if self.tok.start >= end {
            self.tok = Token { kind: Tok::FileMetadata, start: end, end: end + 3 };
        }
    }
    fn meta_expect(&mut self, k: Tok, msg: &str, end: u32) -> PResult<()> {
        if self.is(k) {
            self.meta_bump(end);
            Ok(())
        } else {
            Err(self.wrong_token(msg))
        }
    }
    /// MLIR's `parseCommaSeparatedListUntil(close)`: elements separated by `,` up to `close`
    /// (an empty list allowed).
    fn meta_list(
        &mut self,
        close: Tok,
        close_text: &str,
        end: u32,
        mut element: impl FnMut(&mut Self) -> PResult<()>,
    ) -> PResult<()> {
        if self.is(close) {
            self.meta_bump(end);
            return Ok(());
        }
        loop {
            element(self)?;
            if self.is(Tok::Comma) {
                self.meta_bump(end);
                continue;
            }
            return self.meta_expect(close, &format!("expected ',' or '{close_text}'"), end);
        }
    }

    /// `{-# ... #-}` at the cursor (one `FileMetadata` token), consumed.
    pub(super) fn parse_file_metadata(&mut self) -> PResult<()> {
        let whole = self.tok;
        let end = whole.end - 3;
        self.reset_to(whole.start as usize + 3);
        if self.tok.start >= end {
            self.tok = Token { kind: Tok::FileMetadata, start: end, end: whole.end };
        }
        self.meta_list(Tok::FileMetadata, "#-}", end, |p| {
            let kt = p.tok;
            if kt.kind != Tok::BareId {
                return Err(p.error_here("expected identifier key in file metadata dictionary"));
            }
            p.meta_bump(end);
            p.meta_expect(Tok::Colon, "expected ':'", end)?;
            match p.text(kt) {
                b"dialect_resources" => p.resource_groups(end, true),
                b"external_resources" => p.resource_groups(end, false),
                k => {
                    let msg = format!("unknown key '{}' in file metadata dictionary", String::from_utf8_lossy(k));
                    Err(p.error_at(kt.start, msg))
                }
            }
        })?;
        self.reset_to(whole.end as usize);
        Ok(())
    }

    /// `{ name: { entries }, ... }` of `dialect_resources` (`dialect`) or `external_resources`.
    fn resource_groups(&mut self, end: u32, dialect: bool) -> PResult<()> {
        self.meta_expect(Tok::LBrace, "expected '{'", end)?;
        self.meta_list(Tok::RBrace, "}", end, |p| {
            let nt = p.tok;
            if nt.kind != Tok::BareId {
                return Err(p.error_here("expected identifier key for 'resource' entry"));
            }
            let name = p.tstr(nt);
            p.meta_bump(end);
            p.meta_expect(Tok::Colon, "expected ':'", end)?;
            p.meta_expect(Tok::LBrace, "expected '{'", end)?;
            if dialect {
                p.dialect_resources(name, nt.start, end)
            } else {
                p.external_resources(name, end)
            }
        })
    }

    /// The entries of `name: {...}` in `dialect_resources`: blobs of the builtin dialect.
    fn dialect_resources(&mut self, name: &str, name_off: u32, end: u32) -> PResult<()> {
        if self.ctx.dialect(name).is_none() {
            return Err(self.error_at(name_off, format!("dialect '{name}' is unknown")));
        }
        if name != "builtin" {
            return Err(self.error_here(format!("unexpected 'resource' section for dialect '{name}'")));
        }
        self.meta_list(Tok::RBrace, "}", end, |p| {
            let key = p.resource_key("resource", end)?;
            p.meta_expect(Tok::Colon, "expected ':'", end)?;
            let v = p.tok;
            p.meta_bump(end);
            let raw = if v.kind == Tok::String { &p.text(v)[1..v.range().len() - 1] } else { &b""[..] };
            let blob = ResourceBlob::from_hex_string(raw, &key).map_err(|msg| p.error_at(v.start, msg))?;
            let r = p.resource_handle(key);
            p.ctx.set_resource_blob(r, blob);
            Ok(())
        })
    }

    /// The entries of `name: {...}` in `external_resources`, kept as written (MLIR's fallback
    /// resource map): blobs (`"0x..."`), `true`/`false` and strings.
    fn external_resources(&mut self, name: &str, end: u32) -> PResult<()> {
        let mut entries = Vec::new();
        self.meta_list(Tok::RBrace, "}", end, |p| {
            let key = p.resource_key("external_resources", end)?;
            p.meta_expect(Tok::Colon, "expected ':'", end)?;
            let v = p.tok;
            p.meta_bump(end);
            let text = p.text(v);
            let value = match (v.kind, text) {
                (Tok::BareId, b"true") => ResourceValue::Bool(true),
                (Tok::BareId, b"false") => ResourceValue::Bool(false),
                (Tok::String, _) if text.starts_with(b"\"0x") => {
                    let blob = ResourceBlob::from_hex_string(&text[1..text.len() - 1], &key);
                    ResourceValue::Blob(blob.map_err(|msg| p.error_at(v.start, msg))?)
                }
                (Tok::String, _) => ResourceValue::String(p.string_value(v).into()),
                _ => return Err(p.error_at(v.start, format!("expected string value for key '{key}'"))),
            };
            entries.push((key.into_boxed_str(), value));
            Ok(())
        })?;
        self.external.groups.push((name.into(), entries));
        Ok(())
    }
}
