//! Resources of the text format's file metadata (`{-# dialect_resources: ..., external_resources:
//! ... #-}`): the blobs behind `dense_resource<key>` attributes, kept in the context as MLIR's
//! `builtin` dialect keeps them in its resource blob manager, and the `external_resources`
//! entries of a file, kept with its [`crate::Module`] as mlir-opt's `FallbackAsmResourceMap`
//! keeps them. Both are printed back after the module, byte for byte as mlir-opt prints them.

use std::sync::Arc;

use parking_lot::Mutex;

use crate::context::{Context, Ident};

crate::entity_id!(
    /// One resource of the `builtin` dialect: the handle of a `dense_resource<key>` attribute.
    /// Each parse creates its own handles (so two files may use one key for different data);
    /// the printer renames a key used by two handles of one printed module.
    pub struct Resource; "resource"
);

/// The data of a resource: raw bytes and the alignment they were declared with (the first four
/// bytes, little-endian, of the `"0x..."` hex string of the text format).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ResourceBlob {
    pub alignment: u32,
    pub data: Box<[u8]>,
}

impl ResourceBlob {
    /// The blob of a hex string value (`"0x"` + alignment + data), as MLIR's `parseAsBlob`
    /// reads it: `Err` says why it is not one (the caller adds the location).
    pub fn from_hex_string(value: &[u8], key: &str) -> Result<ResourceBlob, String> {
        let not_blob = || format!("expected hex string blob for key '{key}'");
        let hex = value.strip_prefix(b"0x").ok_or_else(not_blob)?;
        if hex.len() % 2 != 0 || !hex.iter().all(u8::is_ascii_hexdigit) {
            return Err(not_blob());
        }
        let bytes: Vec<u8> =
            hex.chunks(2).map(|c| (crate::lexer::hex_val(c[0]) << 4) | crate::lexer::hex_val(c[1])).collect();
        if bytes.len() < 4 {
            return Err(format!("expected hex string blob for key '{key}' to encode alignment in first 4 bytes"));
        }
        let alignment = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        if alignment != 0 && !alignment.is_power_of_two() {
            return Err(format!(
                "expected hex string blob for key '{key}' to encode alignment in first 4 bytes, but got \
                 non-power-of-2 value: {alignment}"
            ));
        }
        // MLIR keeps an empty blob without its alignment (it prints `"0x00000000"`).
        let alignment = if bytes.len() == 4 { 0 } else { alignment };
        Ok(ResourceBlob { alignment, data: bytes[4..].into() })
    }

    /// `"0x..."`: the alignment (4 bytes, little-endian) then the data, in uppercase hex.
    pub fn write_hex_string(&self, out: &mut String) {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        out.reserve(4 + 2 * (4 + self.data.len()));
        out.push_str("\"0x");
        for &b in self.alignment.to_le_bytes().iter().chain(self.data.iter()) {
            out.push(HEX[(b >> 4) as usize] as char);
            out.push(HEX[(b & 15) as usize] as char);
        }
        out.push('"');
    }
}

/// One value of an `external_resources` entry: MLIR's `AsmResourceEntryKind`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ResourceValue {
    Blob(ResourceBlob),
    Bool(bool),
    /// A string (MLIR strings are byte strings).
    String(Box<[u8]>),
}

/// The `external_resources` of a file: groups (`mlir_reproducer: {...}`) of keyed values, in
/// file order, duplicates kept (as mlir-opt's fallback resource map keeps them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExternalResources {
    pub groups: Vec<(Box<str>, Vec<(Box<str>, ResourceValue)>)>,
}

impl ExternalResources {
    pub fn is_empty(&self) -> bool {
        self.groups.iter().all(|(_, entries)| entries.is_empty())
    }
}

struct Entry {
    key: Ident,
    blob: Option<Arc<ResourceBlob>>,
}

/// The context's resources (all of the `builtin` dialect), indexed by [`Resource`].
#[derive(Default)]
pub(crate) struct ResourceTable {
    entries: Mutex<Vec<Entry>>,
}

impl Context {
    /// A new resource handle named `key`, with its data if known (the parser sets the data
    /// when it reads the file's `dialect_resources` section, after the attributes using it).
    pub fn create_resource(&self, key: &str, blob: Option<ResourceBlob>) -> Resource {
        let key = self.ident(key);
        let mut entries = self.resources.entries.lock();
        entries.push(Entry { key, blob: blob.map(Arc::new) });
        <Resource as crate::entity::EntityRef>::new(entries.len() - 1)
    }
    /// The key of a resource, as written in `dense_resource<key>`.
    pub fn resource_key(&self, r: Resource) -> Ident {
        self.resources.entries.lock()[crate::entity::EntityRef::index(r)].key
    }
    /// The data of a resource (`None` when no file section gave it).
    pub fn resource_blob(&self, r: Resource) -> Option<Arc<ResourceBlob>> {
        self.resources.entries.lock()[crate::entity::EntityRef::index(r)].blob.clone()
    }
    /// Sets (or replaces) the data of a resource.
    pub fn set_resource_blob(&self, r: Resource, blob: ResourceBlob) {
        self.resources.entries.lock()[crate::entity::EntityRef::index(r)].blob = Some(Arc::new(blob));
    }
}

/// What the printer writes after a module: the `{-# ... #-}` dictionary of the builtin
/// resources `used` by the printed attributes (in order of first use; those without data are
/// left out, as MLIR leaves them out) and of the module's external resources. `names` are the
/// printed keys of `used`. Nothing when there is nothing to print.
pub(crate) fn write_file_metadata(
    ctx: &Context,
    used: &[(Resource, String)],
    external: &ExternalResources,
    out: &mut String,
) {
    let mut builtin: Vec<(&str, Arc<ResourceBlob>)> = Vec::new();
    for (r, name) in used {
        if let Some(blob) = ctx.resource_blob(*r) {
            builtin.push((name, blob));
        }
    }
    let mut sections: Vec<(&str, Vec<(&str, Vec<String>)>)> = Vec::new();
    if !builtin.is_empty() {
        let entries = builtin
            .iter()
            .map(|(key, blob)| {
                let mut line = String::new();
                crate::printer::keyword_or_string_into(&mut line, key);
                line.push_str(": ");
                blob.write_hex_string(&mut line);
                line
            })
            .collect();
        sections.push(("dialect_resources", vec![("builtin", entries)]));
    }
    let groups: Vec<(&str, Vec<String>)> = external
        .groups
        .iter()
        .filter(|(_, entries)| !entries.is_empty())
        .map(|(name, entries)| (&**name, entries.iter().map(|(k, v)| external_entry(k, v)).collect()))
        .collect();
    if !groups.is_empty() {
        sections.push(("external_resources", groups));
    }
    if sections.is_empty() {
        return;
    }
    // MLIR's `printFileMetadataDictionary` layout.
    out.push_str("\n{-#\n");
    for (i, (section, groups)) in sections.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        out.push_str("  ");
        out.push_str(section);
        out.push_str(": {\n");
        for (j, (group, entries)) in groups.iter().enumerate() {
            if j > 0 {
                out.push_str(",\n");
            }
            out.push_str("    ");
            out.push_str(group);
            out.push_str(": {\n      ");
            out.push_str(&entries.join(",\n      "));
            out.push_str("\n    }");
        }
        out.push_str("\n  }");
    }
    out.push_str("\n#-}\n");
}

/// `key: value` of one external resource.
fn external_entry(key: &str, value: &ResourceValue) -> String {
    let mut line = String::new();
    crate::printer::keyword_or_string_into(&mut line, key);
    line.push_str(": ");
    match value {
        ResourceValue::Blob(b) => b.write_hex_string(&mut line),
        ResourceValue::Bool(b) => line.push_str(if *b { "true" } else { "false" }),
        ResourceValue::String(s) => crate::printer::quoted_into(&mut line, s),
    }
    line
}
