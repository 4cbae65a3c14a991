//! What a core WebAssembly module may take, written into the module itself, for a host whose
//! engine has no per-instance limits of its own (Node's `WebAssembly`; the Rust host's
//! wasmtime enforces the same limits through its pooling allocator): every memory the module
//! defines gets a maximum of at most `memory_bytes` (whole 64 KiB pages, rounded down),
//! written into its memory section, and every table it defines a maximum of at most
//! `table_elements`, written into its table section. `memory.grow` or `table.grow` past the
//! maximum then fails inside the guest (its allocator sees no memory and aborts): the engine
//! itself refuses, whatever the guest does.

const PAGE: u64 = 65536;
const MEMORY_SECTION: u8 = 5;
const TABLE_SECTION: u8 = 4;

/// A memory's (in pages) or a table's (in elements) size: at start, and at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    /// At start.
    pub min: u32,
    /// At most.
    pub max: u32,
}

/// A module with its memories and tables capped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CappedModule {
    /// The module's bytes.
    pub bytes: Vec<u8>,
    /// Each memory the module defines, in pages.
    pub memories: Vec<Extent>,
    /// Each table the module defines, in elements.
    pub tables: Vec<Extent>,
}

/// The reader of a section's bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, String> {
        let b = *self.bytes.get(self.at).ok_or("truncated module")?;
        self.at += 1;
        Ok(b)
    }

    /// An unsigned LEB128 of at most 32 bits.
    fn u32(&mut self) -> Result<u32, String> {
        let mut result: u64 = 0;
        for shift in (0..35).step_by(7) {
            let b = self.bytes.get(self.at).copied().ok_or("truncated LEB128")?;
            self.at += 1;
            result |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return u32::try_from(result).map_err(|_| "LEB128 too large".to_string());
            }
        }
        Err("LEB128 too long".into())
    }
}

fn write_u32(out: &mut Vec<u8>, mut value: u32) {
    loop {
        let b = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// A limits (flags, min, max?) capped at `cap`, written to `out`; `what` and `unit` name it
/// in an error.
fn cap_limits(r: &mut Reader, cap: u32, what: &str, unit: &str, out: &mut Vec<u8>) -> Result<Extent, String> {
    let flags = r.byte()?;
    if flags > 1 {
        return Err(format!("{what} has limits flags {flags} (shared or 64-bit ones are not supported)"));
    }
    let min = r.u32()?;
    let max = if flags == 1 { r.u32()? } else { u32::MAX };
    if min > cap {
        return Err(format!("{what} needs {min} {unit} at start, more than the cap of {cap}"));
    }
    let extent = Extent { min, max: max.min(cap) };
    out.push(1);
    write_u32(out, extent.min);
    write_u32(out, extent.max);
    Ok(extent)
}

/// The module with its defined memories capped at `memory_bytes` and its defined tables at
/// `table_elements`. Fails on a memory or table whose minimum is already above its cap, a
/// 64-bit or shared memory, a table of another encoding than a plain `funcref` or
/// `externref` one, or a malformed module.
pub fn cap_module(module: &[u8], memory_bytes: u64, table_elements: u32) -> Result<CappedModule, String> {
    let cap_pages = u32::try_from(memory_bytes / PAGE).unwrap_or(u32::MAX);
    if cap_pages < 1 {
        return Err(format!("a memory cap of {memory_bytes} bytes is less than one page"));
    }
    if module.len() < 8 || module[..5] != [0, 0x61, 0x73, 0x6d, 1] {
        return Err("not a core WebAssembly module (version 1)".into());
    }
    let mut capped = CappedModule { bytes: module[..8].to_vec(), memories: Vec::new(), tables: Vec::new() };
    let mut r = Reader { bytes: module, at: 8 };
    while r.at < module.len() {
        let start = r.at;
        let id = r.byte()?;
        let size = r.u32()? as usize;
        let end = r.at.checked_add(size).filter(|&end| end <= module.len()).ok_or("truncated section")?;
        if id != MEMORY_SECTION && id != TABLE_SECTION {
            capped.bytes.extend_from_slice(&module[start..end]);
            r.at = end;
            continue;
        }
        let count = r.u32()?;
        let mut body = Vec::new();
        write_u32(&mut body, count);
        for i in 0..count {
            if id == MEMORY_SECTION {
                capped.memories.push(cap_limits(&mut r, cap_pages, &format!("memory {i}"), "pages", &mut body)?);
            } else {
                let ty = r.byte()?;
                if ty != 0x70 && ty != 0x6f {
                    return Err(format!("table {i} has the type or encoding {ty} (only funcref and externref tables are supported)"));
                }
                body.push(ty);
                capped.tables.push(cap_limits(&mut r, table_elements, &format!("table {i}"), "elements", &mut body)?);
            }
        }
        if r.at != end {
            return Err(format!("malformed {} section", if id == MEMORY_SECTION { "memory" } else { "table" }));
        }
        capped.bytes.push(id);
        write_u32(&mut capped.bytes, u32::try_from(body.len()).map_err(|_| "section too large")?);
        capped.bytes.extend_from_slice(&body);
    }
    Ok(capped)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module of one section.
    fn module(section: &[u8]) -> Vec<u8> {
        [&[0, 0x61, 0x73, 0x6d, 1, 0, 0, 0][..], section].concat()
    }

    #[test]
    fn memories_get_the_cap_as_their_maximum() {
        // (memory 1) with no maximum.
        let capped = cap_module(&module(&[5, 3, 1, 0, 1]), 4 * PAGE, u32::MAX).unwrap();
        assert_eq!(capped.memories, [Extent { min: 1, max: 4 }]);
        assert_eq!(capped.bytes[8..], [5, 4, 1, 1, 1, 4]);
        // A smaller maximum stays; a minimum above the cap is refused.
        assert_eq!(cap_module(&module(&[5, 4, 1, 1, 1, 2]), 4 * PAGE, u32::MAX).unwrap().memories, [Extent { min: 1, max: 2 }]);
        assert!(cap_module(&module(&[5, 3, 1, 0, 9]), 4 * PAGE, u32::MAX).unwrap_err().contains("needs 9 pages"));
        assert!(cap_module(&[1, 2, 3, 4, 5, 6, 7, 8], PAGE, 0).unwrap_err().contains("not a core WebAssembly module"));
        assert!(cap_module(&module(&[5, 3, 1, 0, 1]), PAGE - 1, 0).unwrap_err().contains("less than one page"));
    }

    #[test]
    fn tables_get_the_cap_as_their_maximum() {
        // (table 2 funcref) with no maximum, then one of 1..3.
        let capped = cap_module(&module(&[4, 4, 1, 0x70, 0, 2]), PAGE, 5).unwrap();
        assert_eq!(capped.tables, [Extent { min: 2, max: 5 }]);
        assert_eq!(capped.bytes[8..], [4, 5, 1, 0x70, 1, 2, 5]);
        assert_eq!(cap_module(&module(&[4, 5, 1, 0x70, 1, 1, 3]), PAGE, 5).unwrap().tables, [Extent { min: 1, max: 3 }]);
        assert!(cap_module(&module(&[4, 4, 1, 0x70, 0, 9]), PAGE, 5).unwrap_err().contains("table 0 needs 9 elements"));
        assert!(cap_module(&module(&[4, 4, 1, 0x40, 0, 0]), PAGE, 5).unwrap_err().contains("type or encoding 64"));
        // Other sections pass as they are.
        assert_eq!(cap_module(&module(&[0, 2, 1, 0x61]), PAGE, 5).unwrap().bytes, module(&[0, 2, 1, 0x61]));
    }
}
