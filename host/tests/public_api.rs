//! The library's public surface is deliberate: every public item, its signature,
//! its fields and the traits it implements are listed in `host/public-api.txt`, and this
//! test fails when the source says something else. A change to the surface is written
//! down by regenerating the list (`UPDATE_PUBLIC_API=1 cargo test -p session-tools-host
//! --test public_api`) and committing it with the change, where a reviewer sees it.
//!
//! The list is read from the source with `syn`: public modules from `lib.rs` down,
//! `pub use` re-exports followed to their definitions inside the crate (and named as they
//! are outside it), `#[doc(hidden)]` and `#[cfg(test)]` items left out.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use quote::ToTokens;
use syn::{Attribute, Fields, ImplItem, Item, TraitItem, UseTree, Visibility};

/// One item defined somewhere in the crate.
#[derive(Default, Clone)]
struct Def {
    /// `fn`, `struct`, `enum`, `trait`, `type`, `const`, `static`, `macro`, `mod`.
    kind: String,
    /// What a user depends on besides the name: the signature, public fields, variants,
    /// trait methods, inherent `pub fn`s and implemented traits.
    details: Vec<String>,
    public: bool,
}

#[derive(Default)]
struct Module {
    /// Items by name (for modules, `kind == "mod"`).
    items: HashMap<String, Def>,
    /// `pub use` leaves: (name here, path as written).
    reexports: Vec<(String, Vec<String>)>,
    /// `pub use path::*`.
    globs: Vec<Vec<String>>,
    /// Every `use` leaf, public or not, to resolve the `impl` targets and re-export chains.
    uses: HashMap<String, Vec<String>>,
}

fn tokens(t: &impl ToTokens) -> String {
    t.to_token_stream().to_string()
}

fn is_pub(vis: &Visibility) -> bool {
    matches!(vis, Visibility::Public(_))
}

fn skipped(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        let text = tokens(a);
        text.contains("doc (hidden)") || text.contains("cfg (test)")
    })
}

/// `#[cfg(...)]` and `#[non_exhaustive]`, which are part of the contract.
fn marks(attrs: &[Attribute]) -> String {
    attrs.iter().map(tokens).filter(|t| t.starts_with("# [cfg") || t.starts_with("# [non_exhaustive")).map(|t| format!("{t} ")).collect()
}

/// What is declared with a type besides its name: its marks and its generics.
fn head(attrs: &[Attribute], generics: &syn::Generics) -> Vec<String> {
    let text = format!("{}{}", marks(attrs), tokens(generics));
    if text.trim().is_empty() {
        Vec::new()
    } else {
        vec![format!("declared {}", text.trim())]
    }
}

fn fields(fields: &Fields, prefix: &str, out: &mut Vec<String>) {
    match fields {
        Fields::Named(named) => {
            for f in &named.named {
                if is_pub(&f.vis) {
                    out.push(format!("{prefix}field {}: {}", f.ident.as_ref().unwrap(), tokens(&f.ty)));
                }
            }
        }
        Fields::Unnamed(unnamed) => {
            for (i, f) in unnamed.unnamed.iter().enumerate() {
                if is_pub(&f.vis) {
                    out.push(format!("{prefix}field {i}: {}", tokens(&f.ty)));
                }
            }
        }
        Fields::Unit => {}
    }
}

fn use_leaves(tree: &UseTree, prefix: &mut Vec<String>, leaves: &mut Vec<(String, Vec<String>)>, globs: &mut Vec<Vec<String>>) {
    match tree {
        UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_leaves(&p.tree, prefix, leaves, globs);
            prefix.pop();
        }
        UseTree::Name(n) => {
            let mut path = prefix.clone();
            let name = n.ident.to_string();
            if name == "self" {
                leaves.push((path.last().cloned().unwrap_or_default(), path));
            } else {
                path.push(name.clone());
                leaves.push((name, path));
            }
        }
        UseTree::Rename(r) => {
            let mut path = prefix.clone();
            if r.ident != "self" {
                path.push(r.ident.to_string());
            }
            leaves.push((r.rename.to_string(), path));
        }
        UseTree::Glob(_) => globs.push(prefix.clone()),
        UseTree::Group(g) => {
            for t in &g.items {
                use_leaves(t, prefix, leaves, globs);
            }
        }
    }
}

struct Crate {
    modules: HashMap<String, Module>,
}

impl Crate {
    fn read(root: &Path) -> Crate {
        let mut krate = Crate { modules: HashMap::new() };
        krate.read_file("crate", &root.join("lib.rs"), root);
        krate
    }

    fn read_file(&mut self, path: &str, file: &Path, dir: &Path) {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
        let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", file.display()));
        self.read_items(path, &parsed.items, dir);
    }

    fn read_items(&mut self, path: &str, items: &[Item], dir: &Path) {
        self.modules.entry(path.to_string()).or_default();
        let mut impls = Vec::new();
        for item in items {
            let (name, def) = match item {
                Item::Mod(m) if !skipped(&m.attrs) => {
                    let name = m.ident.to_string();
                    let child = format!("{path}::{name}");
                    match &m.content {
                        Some((_, inner)) => self.read_items(&child, inner, &dir.join(&name)),
                        None => {
                            let flat = dir.join(format!("{name}.rs"));
                            let (file, sub) =
                                if flat.exists() { (flat, dir.join(&name)) } else { (dir.join(&name).join("mod.rs"), dir.join(&name)) };
                            self.read_file(&child, &file, &sub);
                        }
                    }
                    (name, Def { kind: "mod".into(), details: vec![], public: is_pub(&m.vis) })
                }
                Item::Fn(f) if !skipped(&f.attrs) => (
                    f.sig.ident.to_string(),
                    Def { kind: "fn".into(), details: vec![format!("{}{}", marks(&f.attrs), tokens(&f.sig))], public: is_pub(&f.vis) },
                ),
                Item::Struct(s) if !skipped(&s.attrs) => {
                    let mut details = head(&s.attrs, &s.generics);
                    fields(&s.fields, "", &mut details);
                    (s.ident.to_string(), Def { kind: "struct".into(), details, public: is_pub(&s.vis) })
                }
                Item::Enum(e) if !skipped(&e.attrs) => {
                    let mut details = head(&e.attrs, &e.generics);
                    for v in &e.variants {
                        details.push(format!("variant {}{}", marks(&v.attrs), v.ident));
                        match &v.fields {
                            Fields::Named(named) => {
                                for f in &named.named {
                                    details.push(format!("variant {} field {}: {}", v.ident, f.ident.as_ref().unwrap(), tokens(&f.ty)));
                                }
                            }
                            Fields::Unnamed(unnamed) => {
                                for (i, f) in unnamed.unnamed.iter().enumerate() {
                                    details.push(format!("variant {} field {i}: {}", v.ident, tokens(&f.ty)));
                                }
                            }
                            Fields::Unit => {}
                        }
                    }
                    (e.ident.to_string(), Def { kind: "enum".into(), details, public: is_pub(&e.vis) })
                }
                Item::Trait(t) if !skipped(&t.attrs) => {
                    let mut details = head(&t.attrs, &t.generics);
                    details.push(format!("supertraits: {}", tokens(&t.supertraits)));
                    for i in &t.items {
                        match i {
                            TraitItem::Fn(f) => details.push(tokens(&f.sig)),
                            TraitItem::Type(ty) => details.push(format!("type {}", ty.ident)),
                            TraitItem::Const(c) => details.push(format!("const {}: {}", c.ident, tokens(&c.ty))),
                            _ => {}
                        }
                    }
                    (t.ident.to_string(), Def { kind: "trait".into(), details, public: is_pub(&t.vis) })
                }
                Item::Type(t) if !skipped(&t.attrs) => (
                    t.ident.to_string(),
                    Def { kind: "type".into(), details: vec![format!("= {}", tokens(&t.ty))], public: is_pub(&t.vis) },
                ),
                Item::Const(c) if !skipped(&c.attrs) => (
                    c.ident.to_string(),
                    Def { kind: "const".into(), details: vec![format!(": {}", tokens(&c.ty))], public: is_pub(&c.vis) },
                ),
                Item::Static(s) if !skipped(&s.attrs) => (
                    s.ident.to_string(),
                    Def { kind: "static".into(), details: vec![format!(": {}", tokens(&s.ty))], public: is_pub(&s.vis) },
                ),
                Item::Macro(m) if !skipped(&m.attrs) && m.ident.is_some() => {
                    let exported = m.attrs.iter().any(|a| tokens(a).contains("macro_export"));
                    (m.ident.as_ref().unwrap().to_string(), Def { kind: "macro".into(), details: vec![], public: exported })
                }
                Item::Use(u) if !skipped(&u.attrs) => {
                    let (mut leaves, mut globs) = (Vec::new(), Vec::new());
                    use_leaves(&u.tree, &mut Vec::new(), &mut leaves, &mut globs);
                    let module = self.modules.get_mut(path).unwrap();
                    for (name, target) in &leaves {
                        module.uses.insert(name.clone(), target.clone());
                    }
                    if is_pub(&u.vis) {
                        module.reexports.extend(leaves);
                        module.globs.extend(globs);
                    }
                    continue;
                }
                Item::Impl(i) if !skipped(&i.attrs) => {
                    impls.push(i.clone());
                    continue;
                }
                _ => continue,
            };
            self.modules.get_mut(path).unwrap().items.insert(name, def);
        }
        // Inherent `pub fn`s and implemented traits, on the type they are for (the impls of
        // a module are for types it defines or imports).
        for i in impls {
            let syn::Type::Path(target) = i.self_ty.as_ref() else { continue };
            let segments: Vec<String> = target.path.segments.iter().map(|s| s.ident.to_string()).collect();
            let Some((module, name)) = self.resolve(path, &segments) else { continue };
            let mut lines = Vec::new();
            match &i.trait_ {
                Some((_, trait_path, _)) => {
                    let last = trait_path.segments.last().map(tokens).unwrap_or_default();
                    lines.push(format!("impl {}{}", tokens(&i.generics), last));
                }
                None => {
                    for item in &i.items {
                        if let ImplItem::Fn(f) = item {
                            if is_pub(&f.vis) && !skipped(&f.attrs) {
                                lines.push(tokens(&f.sig));
                            }
                        }
                        if let ImplItem::Const(c) = item {
                            if is_pub(&c.vis) && !skipped(&c.attrs) {
                                lines.push(format!("const {}: {}", c.ident, tokens(&c.ty)));
                            }
                        }
                    }
                }
            }
            let module = self.modules.entry(module).or_default();
            module.items.entry(name).or_default().details.extend(lines);
        }
    }

    /// Where a path written in `module` leads: (module, item name), for items of this crate;
    /// `None` for paths into other crates.
    fn resolve(&self, module: &str, path: &[String]) -> Option<(String, String)> {
        self.resolve_depth(module, path, 0)
    }

    fn resolve_depth(&self, module: &str, path: &[String], depth: usize) -> Option<(String, String)> {
        if depth > 16 {
            return None;
        }
        let (first, rest) = path.split_first()?;
        let mut current = match first.as_str() {
            "crate" => "crate".to_string(),
            "self" => module.to_string(),
            "super" => module.rsplit_once("::")?.0.to_string(),
            "Self" => return None,
            _ => {
                let here = self.modules.get(module)?;
                if let Some(target) = here.uses.get(first).filter(|t| t.as_slice() != [first.clone()]) {
                    let mut full = target.clone();
                    full.extend(rest.iter().cloned());
                    return self.resolve_depth(module, &full, depth + 1);
                }
                if rest.is_empty() {
                    return here.items.contains_key(first).then(|| (module.to_string(), first.clone()));
                }
                let child = format!("{module}::{first}");
                if !self.modules.contains_key(&child) {
                    return None;
                }
                child
            }
        };
        let Some((last, between)) = rest.split_last() else {
            let (parent, name) = current.rsplit_once("::")?;
            return Some((parent.to_string(), name.to_string()));
        };
        for (i, segment) in between.iter().enumerate() {
            let child = format!("{current}::{segment}");
            if self.modules.contains_key(&child) {
                current = child;
                continue;
            }
            let target = self.modules.get(&current)?.uses.get(segment)?;
            let mut full = target.clone();
            full.extend(between[i + 1..].iter().cloned());
            full.push(last.clone());
            return self.resolve_depth(&current, &full, depth + 1);
        }
        let here = self.modules.get(&current)?;
        if here.items.contains_key(last) {
            return Some((current, last.clone()));
        }
        let target = here.uses.get(last)?;
        self.resolve_depth(&current, target, depth + 1)
    }

    /// Every public line of the module at `module`, named from `shown` (its public path).
    fn surface(&self, module: &str, shown: &str, out: &mut BTreeSet<String>, seen: &mut BTreeSet<String>) {
        if !seen.insert(format!("{module}@{shown}")) {
            return;
        }
        let Some(m) = self.modules.get(module) else { return };
        for (name, def) in &m.items {
            if def.public {
                self.emit(module, name, &format!("{shown}::{name}"), out, seen);
            }
        }
        for (name, target) in &m.reexports {
            let public = format!("{shown}::{name}");
            match self.resolve(module, target) {
                Some((def_module, def_name)) => self.emit(&def_module, &def_name, &public, out, seen),
                None => {
                    out.insert(format!("{public}: re-export of {}", target.join("::")));
                }
            }
        }
        for target in &m.globs {
            out.insert(format!("{shown}::*: re-export of {}::*", target.join("::")));
        }
    }

    fn emit(&self, module: &str, name: &str, public: &str, out: &mut BTreeSet<String>, seen: &mut BTreeSet<String>) {
        let Some(def) = self.modules.get(module).and_then(|m| m.items.get(name)) else {
            out.insert(format!("{public}: re-export of {module}::{name}"));
            return;
        };
        if def.kind == "mod" {
            out.insert(format!("{public}: mod"));
            self.surface(&format!("{module}::{name}"), public, out, seen);
            return;
        }
        out.insert(format!("{public}: {}", def.kind));
        for line in &def.details {
            out.insert(format!("{public}: {line}"));
        }
    }
}

fn listed() -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let krate = Crate::read(&root);
    let mut out = BTreeSet::new();
    krate.surface("crate", "session_tools_host", &mut out, &mut BTreeSet::new());
    let mut text = String::from(
        "# The public surface of session-tools-host, read from the source by\n\
         # host/tests/public_api.rs. Regenerate with UPDATE_PUBLIC_API=1 and commit it with the change.\n",
    );
    for line in out {
        text.push_str(&line);
        text.push('\n');
    }
    text
}

#[test]
fn the_public_surface_is_the_one_written_down() {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("public-api.txt");
    let now = listed();
    if std::env::var_os("UPDATE_PUBLIC_API").is_some() {
        std::fs::write(&file, &now).unwrap();
        return;
    }
    let written = std::fs::read_to_string(&file).unwrap_or_default();
    if written != now {
        let old: BTreeSet<&str> = written.lines().collect();
        let new: BTreeSet<&str> = now.lines().collect();
        let mut diff = String::new();
        for gone in old.difference(&new) {
            diff.push_str(&format!("- {gone}\n"));
        }
        for added in new.difference(&old) {
            diff.push_str(&format!("+ {added}\n"));
        }
        panic!(
            "the public surface changed without host/public-api.txt saying so:\n{diff}\n\
             If the change is meant, regenerate the list (UPDATE_PUBLIC_API=1 cargo test --release -p session-tools-host \
             --test public_api) and commit it with the change."
        );
    }
}
