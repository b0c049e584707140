//! The hand-written leaf kernels of `kernels/` (one intermediate cost JSON each, seed 004) and
//! `kernels/kernel_name_map.json` (tensor-dialect op keys and fully-qualified torch names ->
//! leaf kernel names), embedded at build time so that `cost-annotate` and `xcs-cost` use
//! exactly the files of the repository.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::json::KernelCostJson;
use super::resolve::Kernel;

include!(concat!(env!("OUT_DIR"), "/kernel_library.rs"));

/// The file of `kernels/` that is the name map, not a kernel.
pub const NAME_MAP_FILE: &str = "kernel_name_map.json";

/// The parsed library.
pub struct Library {
    /// (file name, JSON text, parsed kernel) of every kernel file, sorted by file name.
    pub files: Vec<(&'static str, &'static str, KernelCostJson)>,
    /// Leaf kernels by name, formulas parsed.
    pub kernels: BTreeMap<String, Kernel>,
    /// `kernel_name_map.json`.
    pub name_map: BTreeMap<String, String>,
    /// Problems found while loading (a test checks there are none).
    pub errors: Vec<String>,
}

/// The embedded library (parsed once).
pub fn library() -> &'static Library {
    static LIB: OnceLock<Library> = OnceLock::new();
    LIB.get_or_init(load)
}

fn load() -> Library {
    let mut lib = Library { files: Vec::new(), kernels: BTreeMap::new(), name_map: BTreeMap::new(), errors: Vec::new() };
    for &(file, text) in KERNEL_FILES {
        let origin = format!("kernels/{file}");
        if file == NAME_MAP_FILE {
            match serde_json::from_str::<BTreeMap<String, String>>(text) {
                Ok(m) => lib.name_map = m,
                Err(e) => lib.errors.push(format!("{origin}: {e}")),
            }
            continue;
        }
        let j = match KernelCostJson::from_json_str(text) {
            Ok(j) => j,
            Err(e) => {
                lib.errors.push(format!("{origin}: {e}"));
                continue;
            }
        };
        match Kernel::from_json(&j, &origin) {
            Ok(k) => {
                if lib.kernels.insert(k.name.clone(), k).is_some() {
                    lib.errors.push(format!("{origin}: kernel '{}' is defined twice", j.kernel_name));
                }
            }
            Err(e) => lib.errors.push(e.0),
        }
        lib.files.push((file, text, j));
    }
    for (k, v) in &lib.name_map {
        if !lib.kernels.contains_key(v) {
            lib.errors.push(format!("kernels/{NAME_MAP_FILE}: '{k}' maps to '{v}', which is not a kernel of kernels/"));
        }
    }
    lib
}

/// The leaf kernel `name`.
pub fn leaf(name: &str) -> Option<&'static Kernel> {
    library().kernels.get(name)
}

/// The leaf kernel name that `key` (an op key such as `tensor.gelu[approximate=tanh]`, or a
/// fully-qualified torch name) maps to.
pub fn map_name(key: &str) -> Option<&'static str> {
    library().name_map.get(key).map(String::as_str)
}
